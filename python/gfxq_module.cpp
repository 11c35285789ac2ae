// gfxq._gfxq: the Python binding (pybind11). python/gfxq/__init__.py is the package users import;
// it adds pandas and the friendlier entry points on top of what this module exposes:
//   Connection(): register_arrays(name, [(column, array), ...]), load(name, path), sql(query, backend),
//                 tables(), table_schema(name)
//   Result: columns() -> [(name, values, mask or None)], explain(), backend, algorithm, schema, rows
//   Error: gfxq.Error with .code ("InvalidQuery", "Unsupported", ...)
//
// Input arrays are copied into gfxq columns (they own their storage); output columns are numpy
// arrays over the result's own vectors (no copy) for INT, FLOAT, BIGINT and DOUBLE, kept alive by
// the result.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "gfxq/column_file.h"
#include "gfxq/engine.h"
#include "gfxq/error.h"
#include "gfxq/table.h"

namespace py = pybind11;

namespace gfxq::python {

//! What a Python connection holds: today an Engine and a Catalog of host tables. When gfxq gets
//! its Database (tables resident on the GPU), this class wraps one instead; the binding below only
//! calls these four methods.
class Session {
 public:
  //! Adds or replaces table `name`.
  void add(const std::string& name, Table table) { catalog_.add(name, std::move(table)); }
  //! Runs a query.
  Result sql(const std::string& query, Backend backend) { return engine_.execute_sql(query, catalog_, backend); }
  //! The table names, sorted.
  std::vector<std::string> names() const { return catalog_.names(); }
  //! A table by name (Error(InvalidQuery) if absent).
  const Table& table(const std::string& name) const { return catalog_.get(name); }

 private:
  Engine engine_;
  Catalog catalog_;
};

namespace {

[[noreturn]] void bad_input(const std::string& what) {
  throw Error(ErrorCode::InvalidInput, what);
}

// A 1-D C-contiguous view of `obj` (a copy only when it is strided), of its own dtype.
py::array contiguous(const py::handle& obj, const std::string& column) {
  py::array a = py::array::ensure(obj, py::array::c_style);
  if (!a) bad_input("column '" + column + "': not an array (give a numpy array, list or pandas Series)");
  if (a.ndim() != 1)
    bad_input("column '" + column + "': a " + std::to_string(a.ndim()) + "-dimensional array (columns are 1-D)");
  return a;
}

template <class T>
Column int_column(const std::string& name, const py::array& a) {
  const auto* p = static_cast<const T*>(a.data());
  const auto n = static_cast<size_t>(a.size());
  std::vector<int32_t> v(n);
  for (size_t i = 0; i < n; ++i) {
    if constexpr (sizeof(T) >= 4 && !(std::is_same_v<T, int32_t>)) {
      const bool fits = std::is_signed_v<T>
                            ? (static_cast<int64_t>(p[i]) >= INT32_MIN && static_cast<int64_t>(p[i]) <= INT32_MAX)
                            : static_cast<uint64_t>(p[i]) <= static_cast<uint64_t>(INT32_MAX);
      if (!fits)
        bad_input("column '" + name + "': row " + std::to_string(i) + " holds " + std::to_string(p[i]) +
                  ", outside int32 (gfxq INT columns are int32)");
    }
    v[i] = static_cast<int32_t>(p[i]);
  }
  return Column::ints(name, std::move(v));
}

// One gfxq column from a numpy array (copied; integers narrowed to int32 only when every value fits).
Column to_column(const std::string& name, const py::handle& obj) {
  const py::array a = contiguous(obj, name);
  const py::dtype dt = a.dtype();
  const char kind = dt.kind();
  const auto size = dt.itemsize();
  const auto n = static_cast<size_t>(a.size());
  if (kind == 'b') {
    std::vector<int32_t> v(n);
    const auto* p = static_cast<const bool*>(a.data());
    for (size_t i = 0; i < n; ++i) v[i] = p[i] ? 1 : 0;
    return Column::ints(name, std::move(v));
  }
  if (kind == 'i') {
    if (size == 1) return int_column<int8_t>(name, a);
    if (size == 2) return int_column<int16_t>(name, a);
    if (size == 4) return int_column<int32_t>(name, a);
    return int_column<int64_t>(name, a);
  }
  if (kind == 'u') {
    if (size == 1) return int_column<uint8_t>(name, a);
    if (size == 2) return int_column<uint16_t>(name, a);
    if (size == 4) return int_column<uint32_t>(name, a);
    return int_column<uint64_t>(name, a);
  }
  if (kind == 'f') {
    if (size != 4)
      bad_input("column '" + name + "': float" + std::to_string(size * 8) +
                " values (gfxq FLOAT columns are float32; convert with .astype(numpy.float32) if rounding is meant)");
    std::vector<float> v(n);
    if (n) std::memcpy(v.data(), a.data(), n * sizeof(float));
    return Column::floats(name, std::move(v));
  }
  if (kind == 'M') {
    const std::string str = py::str(py::handle(dt)).cast<std::string>();
    if (str != "datetime64[D]")
      bad_input("column '" + name + "': " + str +
                " values (DATE columns take datetime64[D]: convert with .astype('datetime64[D]') when every value is "
                "a whole day)");
    std::vector<int32_t> v(n);
    const auto* p = static_cast<const int64_t*>(a.data());
    for (size_t i = 0; i < n; ++i) {
      if (p[i] == std::numeric_limits<int64_t>::min())
        bad_input("column '" + name + "': row " + std::to_string(i) + " is NaT (NULLs are not supported yet)");
      if (p[i] < INT32_MIN || p[i] > INT32_MAX) bad_input("column '" + name + "': a date out of range");
      v[i] = static_cast<int32_t>(p[i]);
    }
    return Column::dates(name, std::move(v));
  }
  if (kind == 'U' || kind == 'S' || kind == 'O') {
    std::vector<std::string> v(n);
    const py::list items = a.attr("tolist")();
    for (size_t i = 0; i < n; ++i) {
      const py::handle item = items[i];
      if (py::isinstance<py::str>(item))
        v[i] = item.cast<std::string>();
      else if (py::isinstance<py::bytes>(item))
        v[i] = std::string(item.cast<py::bytes>());
      else if (item.is_none())
        bad_input("column '" + name + "': row " + std::to_string(i) + " is None (NULLs are not supported yet)");
      else
        bad_input("column '" + name + "': row " + std::to_string(i) + " is a " +
                  py::str(py::type::of(item).attr("__name__")).cast<std::string>() + ", not a str");
    }
    return Column::strings(name, v);
  }
  bad_input("column '" + name + "': numpy dtype " + py::str(py::handle(dt)).cast<std::string>() +
            " has no gfxq column type (integers, float32, datetime64[D], str)");
}

// A result column as (name, values, mask or None); numeric values are views of the result's vectors.
py::tuple from_column(const std::shared_ptr<Result>& result, size_t i) {
  const Column& c = result->table.columns[i];
  const py::capsule keep(new std::shared_ptr<Result>(result),
                         [](void* p) { delete static_cast<std::shared_ptr<Result>*>(p); });
  py::object values;
  const auto n = static_cast<py::ssize_t>(c.size());
  switch (c.type) {
    case Type::Int32: values = py::array_t<int32_t>({n}, {sizeof(int32_t)}, c.as<int32_t>().data(), keep); break;
    case Type::Float32: values = py::array_t<float>({n}, {sizeof(float)}, c.as<float>().data(), keep); break;
    case Type::Int64: values = py::array_t<int64_t>({n}, {sizeof(int64_t)}, c.as<int64_t>().data(), keep); break;
    case Type::Float64: values = py::array_t<double>({n}, {sizeof(double)}, c.as<double>().data(), keep); break;
    case Type::Date: {
      py::array_t<int64_t> days(n);
      auto* out = days.mutable_data();
      for (py::ssize_t r = 0; r < n; ++r) out[r] = c.as<int32_t>()[static_cast<size_t>(r)];
      values = days.attr("view")("datetime64[D]");
      break;
    }
    case Type::String: {
      // One Python str per dictionary entry, shared by the rows that hold it.
      std::vector<py::object> decoded(c.dictionary->size());
      py::array out(py::dtype("O"), std::vector<py::ssize_t>{n});
      auto** cells = static_cast<PyObject**>(out.mutable_data());
      for (py::ssize_t r = 0; r < n; ++r) {
        PyObject* cell = Py_None;
        if (!c.is_null(static_cast<uint64_t>(r))) {
          const auto code = static_cast<size_t>(c.as<int32_t>()[static_cast<size_t>(r)]);
          if (!decoded[code]) {
            const std::string_view s = c.dictionary->value(code);
            decoded[code] = py::reinterpret_steal<py::object>(
                PyUnicode_DecodeUTF8(s.data(), static_cast<py::ssize_t>(s.size()), "surrogateescape"));
            if (!decoded[code]) throw py::error_already_set();
          }
          cell = decoded[code].ptr();
        }
        // The new array's cells hold NULL or None: replace, keeping the reference counts right.
        PyObject* old = cells[r];
        Py_INCREF(cell);
        cells[r] = cell;
        Py_XDECREF(old);
      }
      values = out;
      break;
    }
  }
  py::object mask = py::none();
  if (!c.nulls.empty()) {
    py::array_t<bool> m(n);
    for (py::ssize_t r = 0; r < n; ++r) m.mutable_data()[r] = c.nulls[static_cast<size_t>(r)] != 0;
    mask = m;
  }
  return py::make_tuple(c.name, values, mask);
}

}  // namespace

}  // namespace gfxq::python

PYBIND11_MODULE(_gfxq, m) {
  using namespace gfxq;
  using gfxq::python::Session;
  m.doc() = "gfxq: relational queries on GPUs through graphics APIs (the compiled part; import gfxq)";

  static py::exception<Error> error_type(m, "Error");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      py::object err = py::reinterpret_borrow<py::object>(error_type.ptr())(py::str(e.what()));
      err.attr("code") = to_string(e.code());
      PyErr_SetObject(error_type.ptr(), err.ptr());
    }
  });

  py::class_<Result, std::shared_ptr<Result>>(m, "Result")
      .def("columns",
           [](const std::shared_ptr<Result>& r) {
             py::list out;
             for (size_t i = 0; i < r->table.columns.size(); ++i) out.append(gfxq::python::from_column(r, i));
             return out;
           })
      .def("explain", [](const Result& r) { return r.report.text(); })
      .def_property_readonly("backend", [](const Result& r) { return std::string(to_string(r.report.backend)); })
      .def_property_readonly("algorithm", [](const Result& r) { return r.report.algorithm; })
      .def_property_readonly("schema", [](const Result& r) { return r.table.schema(); })
      .def_property_readonly("rows", [](const Result& r) { return r.table.rows(); })
      .def("csv", [](const Result& r) {
        std::ostringstream out;
        write_csv(out, r.table, false);
        return out.str();
      });

  py::class_<Session>(m, "Connection")
      .def(py::init<>())
      .def("register_arrays",
           [](Session& s, const std::string& name, const std::vector<std::pair<std::string, py::object>>& columns) {
             Table t;
             for (const auto& [column, array] : columns) t.columns.push_back(gfxq::python::to_column(column, array));
             py::gil_scoped_release unlocked;
             s.add(name, std::move(t));
           })
      .def("load",
           [](Session& s, const std::string& name, const std::string& path) {
             py::gil_scoped_release unlocked;
             s.add(name, read_table_file(path));
           })
      .def("sql",
           [](Session& s, const std::string& query, const std::string& backend) {
             const Backend b = parse_backend(backend);
             py::gil_scoped_release unlocked;
             return std::make_shared<Result>(s.sql(query, b));
           })
      .def("tables", &Session::names)
      .def("table_schema", [](const Session& s, const std::string& name) { return s.table(name).schema(); });
}
