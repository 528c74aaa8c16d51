import doctest
import io
import unittest


def add(a, b):
    """
    >>> add(2, 3)
    5
    >>> add("a", "b")
    'ab'
    """
    return a + b


class AddTests(unittest.TestCase):
    def setUp(self):
        self.base = 1

    def test_numbers(self):
        self.assertEqual(add(self.base, 2), 3)

    def test_raises(self):
        with self.assertRaises(TypeError):
            add(1, "x")

    @unittest.skip("shown as skipped")
    def test_skipped(self):
        pass

    def test_subtests(self):
        for i in range(3):
            with self.subTest(i=i):
                self.assertGreaterEqual(add(i, 0), 0)


print(doctest.testmod())
stream = io.StringIO()
suite = unittest.defaultTestLoader.loadTestsFromTestCase(AddTests)
result = unittest.TextTestRunner(stream=stream, verbosity=0).run(suite)
print(result.testsRun, len(result.failures), len(result.errors), len(result.skipped), result.wasSuccessful())
from unittest import mock  # noqa: E402

with mock.patch("builtins.open", mock.mock_open(read_data="mocked")) as fake:
    print(open("anything").read(), fake.call_args)
m = mock.MagicMock(return_value=3)
print(m(1), m.call_count, mock.sentinel.value is mock.sentinel.value)
unittest.main(argv=["idiom"], exit=False, testRunner=unittest.TextTestRunner(stream=io.StringIO()))
print("unittest.main returned")
unittest.main()
