"""gfxq: relational queries on GPUs through graphics APIs, from Python.

    import numpy as np, gfxq
    db = gfxq.connect()
    db.register("t", {"a": np.arange(10, dtype=np.int32), "x": np.linspace(0, 1, 10, dtype=np.float32)})
    r = db.sql("SELECT COUNT(*), SUM(a) FROM t WHERE x < 0.5")   # backend="auto" | "cpu" | "compute" | "raster"
    r.fetchnumpy()        # {"COUNT(*)": array([5]), "SUM(a)": array([10])}
    print(r.explain())    # which backend and algorithm ran, pass by pass
    r.df()                # a pandas DataFrame, when pandas is installed

Columns go in as numpy arrays (or anything numpy.asarray takes, and pandas DataFrames): integers
(narrowed to int32 when every value fits), float32, datetime64[D] (DATE) and str (STRING); they are
copied into gfxq's tables. Results come out as numpy arrays that share the result's memory for INT,
FLOAT, BIGINT and DOUBLE columns; NULLs come as numpy masked arrays (pandas: nullable dtypes).
Every failure raises gfxq.Error, whose .code says what kind ("InvalidQuery", "Unsupported", ...).
"""

import numpy as _np

from ._gfxq import Error  # noqa: F401  (re-exported)
from ._gfxq import Connection as _Connection

__all__ = ["connect", "Connection", "Result", "Error"]


def _pandas():
    try:
        import pandas
    except ImportError as e:  # pragma: no cover - depends on the machine
        raise Error("pandas is not installed (Debian: apt install python3-pandas)") from e
    return pandas


def _is_dataframe(obj):
    return type(obj).__module__.startswith("pandas") and hasattr(obj, "columns") and hasattr(obj, "dtypes")


def _column_array(name, values):
    """A numpy array gfxq can take from a column given as an array, a list or a pandas Series."""
    if type(values).__module__.startswith("pandas"):
        dtype = values.dtype
        if getattr(dtype, "name", "") == "category":
            values = values.astype(object)
        elif str(dtype).startswith("datetime64"):
            days = values.values.astype("datetime64[D]")
            if (values.values != days.astype(values.values.dtype)).any():
                raise Error(f"column '{name}': times of day (DATE columns hold whole days)")
            return days
        values = values.to_numpy()
    array = _np.asarray(values)
    if array.dtype.kind == "M" and array.dtype != _np.dtype("datetime64[D]"):
        days = array.astype("datetime64[D]")
        if (array != days.astype(array.dtype)).any():
            raise Error(f"column '{name}': times of day (DATE columns hold whole days)")
        array = days
    return array


class Result:
    """The answer of one query: its table and the execution report."""

    def __init__(self, native):
        self._native = native

    def fetchnumpy(self):
        """The columns as {name: numpy array}; masked arrays where a column has NULLs."""
        out = {}
        for name, values, mask in self._native.columns():
            out[name] = values if mask is None else _np.ma.masked_array(values, mask=mask)
        return out

    def fetchall(self):
        """The rows as a list of tuples (None for NULL)."""
        columns = [
            [None if (mask is not None and mask[i]) else v for i, v in enumerate(values.tolist())]
            for _, values, mask in self._native.columns()
        ]
        return list(zip(*columns))

    def df(self):
        """The result as a pandas DataFrame (nullable dtypes where a column has NULLs)."""
        pd = _pandas()
        data = {}
        for name, values, mask in self._native.columns():
            if mask is None:
                data[name] = values
            elif values.dtype.kind in "iu":
                data[name] = pd.arrays.IntegerArray(values.copy(), mask.copy())
            elif values.dtype.kind == "f":
                data[name] = pd.arrays.FloatingArray(values.copy(), mask.copy())
            else:
                data[name] = pd.array(_np.where(mask, None, values), dtype=object)
        return pd.DataFrame(data)

    fetchdf = df

    def explain(self):
        """The execution report: backend, algorithm, why, and every pass with counts and times."""
        return self._native.explain()

    @property
    def backend(self):
        """The backend that ran the query: "cpu", "compute" or "raster"."""
        return self._native.backend

    @property
    def algorithm(self):
        """The algorithm the report names."""
        return self._native.algorithm

    @property
    def schema(self):
        """The result's columns and types, e.g. "a:int,SUM(b):bigint"."""
        return self._native.schema

    def __len__(self):
        return self._native.rows

    def __repr__(self):
        text = self._native.csv()
        lines = text.splitlines()
        more = f"\n... ({len(lines) - 21} more rows)" if len(lines) > 21 else ""
        return "\n".join(lines[:21]) + more


class Connection:
    """Named tables and the engines that query them (today an Engine and a Catalog of host tables)."""

    def __init__(self):
        self._native = _Connection()

    def register(self, name, columns):
        """Adds (or replaces) table `name` from {column: array} or a pandas DataFrame."""
        if _is_dataframe(columns):
            items = [(str(c), _column_array(c, columns[c])) for c in columns.columns]
        elif isinstance(columns, dict):
            items = [(str(c), _column_array(c, v)) for c, v in columns.items()]
        else:
            raise Error("register takes a dict of arrays or a pandas DataFrame")
        self._native.register_arrays(name, items)
        return self

    def load(self, name, path):
        """Adds (or replaces) table `name` from a .csv or .gfxq file (read on all cores)."""
        self._native.load(name, str(path))
        return self

    def sql(self, query, backend="auto"):
        """Runs a query on `backend` ("auto", "cpu", "compute", "raster")."""
        return Result(self._native.sql(query, backend))

    def tables(self):
        """The registered table names, sorted."""
        return self._native.tables()

    def schema(self, name):
        """A table's columns and types, e.g. "a:int,x:float"."""
        return self._native.table_schema(name)


def connect():
    """A new connection with no tables."""
    return Connection()
