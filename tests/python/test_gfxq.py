"""The Python module (python/gfxq): tables in from numpy and pandas, queries on every backend
compared with the CPU reference and with numpy, results out as numpy (sharing the result's memory),
masked arrays and pandas, files, explain, and every error as gfxq.Error with its code.
Run by ctest (python_module) with PYTHONPATH set to the build tree."""

import os
import tempfile
import unittest

import numpy as np

import gfxq

SEED = 20261126


def sample(rows, seed=SEED):
    rng = np.random.default_rng(seed)
    return {
        "a": rng.integers(-1000, 1000, rows, dtype=np.int32),
        "b": rng.integers(0, 16, rows, dtype=np.int64),  # narrowed to int32: every value fits
        "x": rng.random(rows, dtype=np.float32),
    }


class Basics(unittest.TestCase):
    def setUp(self):
        self.data = sample(5000)
        self.db = gfxq.connect()
        self.db.register("t", self.data)

    def test_schema_and_tables(self):
        self.assertEqual(self.db.tables(), ["t"])
        self.assertEqual(self.db.schema("t"), "a:int,b:int,x:float")

    def test_aggregates_match_numpy(self):
        a, x = self.data["a"], self.data["x"]
        r = self.db.sql("SELECT COUNT(*), SUM(a), MIN(a), MAX(x) FROM t WHERE x < 0.5 AND a > -500", backend="cpu")
        got = r.fetchnumpy()
        keep = (x < np.float32(0.5)) & (a > -500)
        self.assertEqual(got["COUNT(*)"][0], keep.sum(), f"seed {SEED}")
        self.assertEqual(got["SUM(a)"][0], a[keep].astype(np.int64).sum(), f"seed {SEED}")
        self.assertEqual(got["MIN(a)"][0], a[keep].min())
        self.assertEqual(got["MAX(x)"][0], x[keep].max())
        self.assertEqual(len(r), 1)
        self.assertEqual(r.backend, "cpu")

    def test_every_backend_equals_the_cpu_reference(self):
        queries = [
            "SELECT COUNT(*), SUM(a) FROM t WHERE x < 0.25 OR b = 3",
            "SELECT a, x FROM t WHERE a > 900 ORDER BY a LIMIT 7",
            "SELECT MIN(x), MAX(a) FROM t WHERE b < 4",
        ]
        answered = {"auto": 0, "compute": 0, "raster": 0}
        for q in queries:
            want = self.db.sql(q, backend="cpu").fetchnumpy()
            for backend in answered:
                with self.subTest(query=q, backend=backend):
                    try:
                        got = self.db.sql(q, backend=backend).fetchnumpy()
                    except gfxq.Error as e:
                        # A backend may refuse a query it cannot answer exactly; it must say so.
                        self.assertEqual(e.code, "Unsupported", str(e))
                        continue
                    answered[backend] += 1
                    self.assertEqual(list(got), list(want))
                    for name in want:
                        np.testing.assert_array_equal(got[name], want[name])
        # Every backend answered some query here (Mesa's drivers in CI, a GPU elsewhere).
        for backend, count in answered.items():
            self.assertGreater(count, 0, backend)

    def test_results_share_memory_and_rows(self):
        r = self.db.sql("SELECT a, x FROM t WHERE a > 990", backend="cpu")
        cols = r.fetchnumpy()
        self.assertFalse(cols["a"].flags["OWNDATA"])  # a view of the result's column
        self.assertEqual(cols["a"].dtype, np.int32)
        self.assertEqual(cols["x"].dtype, np.float32)
        want = self.data["a"][self.data["a"] > 990]
        np.testing.assert_array_equal(cols["a"], want)
        del r  # the arrays keep the result alive
        np.testing.assert_array_equal(cols["a"], want)
        rows = self.db.sql("SELECT a FROM t WHERE a > 990", backend="cpu").fetchall()
        self.assertEqual(rows, [(int(v),) for v in want])

    def test_nulls_come_as_masked_arrays(self):
        r = self.db.sql("SELECT MIN(a), COUNT(*) FROM t WHERE a > 5000", backend="cpu")
        got = r.fetchnumpy()
        self.assertTrue(np.ma.isMaskedArray(got["MIN(a)"]))
        self.assertTrue(got["MIN(a)"].mask[0])
        self.assertEqual(got["COUNT(*)"][0], 0)
        self.assertEqual(r.fetchall(), [(None, 0)])

    def test_explain_names_the_backend(self):
        r = self.db.sql("SELECT COUNT(*) FROM t WHERE a < 0")
        text = r.explain()
        self.assertIn("backend: " + r.backend, text)
        self.assertIn("algorithm:", text)
        self.assertTrue(r.algorithm)
        self.assertIn("COUNT(*)", repr(r))

    def test_replacing_a_table(self):
        self.db.register("t", {"a": np.array([1, 2, 3], dtype=np.int32)})
        self.assertEqual(self.db.sql("SELECT SUM(a) FROM t", backend="cpu").fetchnumpy()["SUM(a)"][0], 6)


class Inputs(unittest.TestCase):
    def test_column_types(self):
        db = gfxq.connect()
        db.register(
            "t",
            {
                "i8": np.array([-1, 2], dtype=np.int8),
                "u16": np.array([7, 65535], dtype=np.uint16),
                "flag": np.array([True, False]),
                "s": np.array(["b", "a"]),
                "o": np.array(["x, y", "日本"], dtype=object),
                "d": np.array(["1992-01-01", "1970-01-02"], dtype="datetime64[D]"),
                "strided": np.arange(4, dtype=np.int32)[::2],
                "lst": [5, 6],
            },
        )
        self.assertEqual(db.schema("t"), "i8:int,u16:int,flag:int,s:string,o:string,d:date,strided:int,lst:int")
        got = db.sql("SELECT i8, u16, flag, strided, lst FROM t", backend="cpu").fetchall()
        self.assertEqual(got, [(-1, 7, 1, 0, 5), (2, 65535, 0, 2, 6)])

    def test_input_errors(self):
        db = gfxq.connect()
        cases = [
            ({"f": np.zeros(3)}, "float64"),
            ({"big": np.array([1, 2**40], dtype=np.int64)}, "outside int32"),
            ({"m": np.zeros((2, 2), dtype=np.int32)}, "2-dimensional"),
            ({"n": np.array(["a", None], dtype=object)}, "None"),
            ({"c": np.array([1 + 2j])}, "no gfxq column type"),
            ({"t": np.array(["2020-01-01T10:00"], dtype="datetime64[m]")}, "times of day"),
            ({"a": np.zeros(2, dtype=np.int32), "b": np.zeros(3, dtype=np.int32)}, "rows"),
        ]
        for columns, text in cases:
            with self.subTest(text=text):
                with self.assertRaises(gfxq.Error) as caught:
                    db.register("bad", columns)
                self.assertIn(text, str(caught.exception))
        self.assertEqual(db.tables(), [])  # nothing half-registered
        with self.assertRaises(gfxq.Error):
            db.register("bad", [1, 2, 3])

    def test_query_errors_and_the_next_query_works(self):
        db = gfxq.connect().register("t", {"a": np.arange(4, dtype=np.int32)})
        for query, backend, code in [
            ("SELEC 1", "cpu", "InvalidQuery"),
            ("SELECT nope FROM t", "cpu", "InvalidQuery"),
            ("SELECT COUNT(*) FROM missing", "cpu", "InvalidQuery"),
            ("SELECT COUNT(*) FROM t", "gpu", "InvalidQuery"),
        ]:
            with self.subTest(query=query, backend=backend):
                with self.assertRaises(gfxq.Error) as caught:
                    db.sql(query, backend=backend)
                self.assertEqual(caught.exception.code, code)
        self.assertEqual(db.sql("SELECT COUNT(*) FROM t", backend="cpu").fetchnumpy()["COUNT(*)"][0], 4)

    def test_files(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "t.csv")
            with open(path, "w") as f:
                f.write('a:int,s:string,d:date\n3,"x, y",1992-01-01\n-4,z,2000-02-29\n')
            db = gfxq.connect().load("t", path)
            self.assertEqual(db.schema("t"), "a:int,s:string,d:date")
            self.assertEqual(db.sql("SELECT SUM(a) FROM t", backend="cpu").fetchnumpy()["SUM(a)"][0], -1)
            with self.assertRaises(gfxq.Error) as caught:
                db.load("u", os.path.join(d, "missing.csv"))
            self.assertEqual(caught.exception.code, "Io")
            with self.assertRaises(gfxq.Error) as caught:
                db.load("u", os.path.join(d, "t.txt"))
            self.assertEqual(caught.exception.code, "InvalidInput")


class Pandas(unittest.TestCase):
    def setUp(self):
        try:
            import pandas
        except ImportError:
            self.skipTest("pandas is not installed")
        self.pd = pandas

    def test_dataframes_in_and_out(self):
        pd = self.pd
        rng = np.random.default_rng(SEED)
        df = pd.DataFrame(
            {
                "k": rng.integers(0, 100, 300),
                "v": rng.random(300, dtype=np.float32),
                "cat": pd.Categorical(rng.choice(["red", "green", "blue"], 300)),
                "day": pd.to_datetime("1995-01-01") + pd.to_timedelta(rng.integers(0, 900, 300), unit="D"),
            }
        )
        db = gfxq.connect().register("df", df)
        self.assertEqual(db.schema("df"), "k:int,v:float,cat:string,day:date")
        out = db.sql("SELECT k, v FROM df WHERE k < 10 ORDER BY k", backend="cpu").df()
        want = df[df.k < 10].sort_values("k", kind="stable")
        self.assertEqual(list(out.columns), ["k", "v"])
        np.testing.assert_array_equal(out["k"].to_numpy(), want["k"].to_numpy())
        np.testing.assert_array_equal(out["v"].to_numpy(), want["v"].to_numpy())
        empty = db.sql("SELECT MAX(v), COUNT(*) FROM df WHERE k > 1000", backend="cpu").df()
        self.assertTrue(empty["MAX(v)"].isna().all())
        self.assertEqual(empty["COUNT(*)"][0], 0)

    def test_times_of_day_are_refused(self):
        df = self.pd.DataFrame({"t": self.pd.to_datetime(["2020-01-01 10:00"])})
        with self.assertRaises(gfxq.Error):
            gfxq.connect().register("t", df)


if __name__ == "__main__":
    unittest.main()
