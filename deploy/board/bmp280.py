"""The BMP280's compensation as the kernel's bmp280 driver computes it (bmp280-core.c, the 32-bit
temperature and 64-bit pressure formulas of the datasheet), and its inverse: the six raw data
bytes (0xF7-0xFC) that make the driver report a given pressure. The calibration is the
datasheet's example, the one deploy/board/guest/board-baro writes to 0x88-0x9F."""

T1, T2, T3 = 27504, 26435, -1000
P1, P2, P3, P4, P5, P6, P7, P8, P9 = 36477, -10685, 3024, 2855, 140, -7, 15500, -14600, 6000
ADC_T_25C = 519888  # about 25.08 degC: the temperature the board's sensor reports


def _tdiv(a, b):
    """C's (and div64_s64's) division: truncates toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def t_fine(adc_t):
    var1 = (((adc_t >> 3) - (T1 << 1)) * T2) >> 11
    var2 = (((((adc_t >> 4) - T1) * ((adc_t >> 4) - T1)) >> 12) * T3) >> 14
    return var1 + var2


def pressure_pa(adc_p, adc_t=ADC_T_25C):
    """The pressure the driver reports (Pa, from its Q24.8 result)."""
    var1 = t_fine(adc_t) - 128000
    var2 = var1 * var1 * P6
    var2 += (var1 * P5) << 17
    var2 += P4 << 35
    var1 = ((var1 * var1 * P3) >> 8) + ((var1 * P2) << 12)
    var1 = (((1 << 47) + var1) * P1) >> 33
    p = (1 << 20) - adc_p
    p = _tdiv(((p << 31) - var2) * 3125, var1)
    var1 = (P9 * (p >> 13) * (p >> 13)) >> 25
    var2 = (P8 * p) >> 19
    p = ((p + var1 + var2) >> 8) + (P7 << 4)
    return (p & 0xFFFFFFFF) / 256.0


def adc_for(pa, adc_t=ADC_T_25C):
    """The 20-bit raw pressure whose reading is closest to pa (the reading falls as raw rises)."""
    lo, hi = 0, (1 << 20) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if pressure_pa(mid, adc_t) > pa:
            lo = mid + 1
        else:
            hi = mid
    return lo


def raw_bytes(pa, adc_t=ADC_T_25C):
    """The six data registers, msb first: pressure (20 bits in 3 bytes), then temperature."""
    p, t = adc_for(pa, adc_t) << 4, adc_t << 4
    return [(p >> 16) & 0xFF, (p >> 8) & 0xFF, p & 0xFF, (t >> 16) & 0xFF, (t >> 8) & 0xFF, t & 0xFF]


# A skipped measurement (0x80000 in either field): the driver answers EIO.
SKIPPED = [0x80, 0x00, 0x00, 0x80, 0x00, 0x00]


def pressure_at(h_m, p0=101325.0):
    """The ISA pressure at h_m metres (what a barometer would read climbing through it)."""
    return p0 * (1 - h_m / 44330.77) ** 5.25588


if __name__ == "__main__":
    # self-check: the datasheet's example (adc_T 519888, adc_P 415148 -> 100653.27 Pa)
    assert abs(pressure_pa(415148) - 100653.27) < 1, pressure_pa(415148)
    for h in (0, 120.5, 300):
        pa = pressure_at(h)
        got = pressure_pa(adc_for(pa))
        assert abs(got - pa) < 0.2, (h, pa, got)
    print("bmp280.py: ok")
