"""Numbers as the report prints them: fixed point, and a time in the unit its interval reads in."""

from __future__ import annotations

import pytest

from jaxpitfalls.formatting import duration_interval, fixed, readable_times


@pytest.mark.parametrize("ms, low, high, printed", [
    (1.2345, 1.1, 1.3, "1.234 ms [1.100, 1.300]"),               # ms from 10 µs, as every other interval
    (0.0123, 0.011, 0.0134, "0.012 ms [0.011, 0.013]"),
    (0.0045, 0.003, 0.0061, "4.5 µs [3, 6.1]"),                   # a microsecond call's difference
    (0.00000898, -0.00000208, 0.0000200, "8.98 ns [-2.08, 20]"),  # was 0.00000898 ms [-0.00000208, 0.0000200]
    (-0.0000142, -0.0000283, -0.0000000823, "-14.2 ns [-28.3, -0.0823]"),
])
def test_a_time_difference_is_printed_in_the_unit_its_widest_end_reads_in(ms, low, high, printed):
    assert duration_interval(ms, low, high) == printed


def test_a_small_number_never_reads_as_zero():
    assert fixed(0.0000937) == "0.0000937" and fixed(0.5) == "0.500"


def test_a_table_of_times_under_a_millisecond_reads_in_microseconds():
    import pandas as pd

    shown, unit = readable_times(pd.DataFrame({"a (blocked)": [0.0112, 0.5]}))
    assert unit == "µs" and shown["a (blocked)"].tolist() == pytest.approx([11.2, 500.0])
    assert readable_times(pd.DataFrame({"a (blocked)": [0.5, 1.2]}))[1] == "ms"


@pytest.mark.parametrize("value, low, high, printed", [
    (924.914, 727.102, 1176.542, "924.9x [727.1, 1177]"),  # a RECOMPILES call against a warm one, was 924.914x
    (4.724, 0.081, 273.977, "4.724x [0.081, 274.0]"),      # each number its own digits: the low end kept
    (5.864, 3.573, 9.625, "5.864x [3.573, 9.625]"),
    (99.9996, 99.95, 100.2, "100.0x [99.950, 100.2]"),     # rounded to 100, four digits as any number there
])
def test_an_interval_prints_no_more_than_four_significant_digits_from_100_up(value, low, high, printed):
    from jaxpitfalls.contract.decisions import interval
    assert interval(value, low, high, "x") == printed
