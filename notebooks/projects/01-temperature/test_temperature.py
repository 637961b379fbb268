import unittest

from temperature import celsius_to_fahrenheit, fahrenheit_to_celsius


class CelsiusToFahrenheit(unittest.TestCase):
    def test_water_freezes_at_32(self) -> None:
        got = celsius_to_fahrenheit(0)
        assert got == 32, f"celsius_to_fahrenheit(0) is {got}, not 32"

    def test_water_boils_at_212(self) -> None:
        got = celsius_to_fahrenheit(100)
        assert got == 212, f"celsius_to_fahrenheit(100) is {got}, not 212"

    def test_round_trip(self) -> None:
        got = fahrenheit_to_celsius(celsius_to_fahrenheit(37))
        assert abs(got - 37) < 1e-9, f"37 °C there and back is {got}"


class FahrenheitToCelsius(unittest.TestCase):
    def test_water_boils_at_100(self) -> None:
        got = fahrenheit_to_celsius(212)
        assert got == 100, f"fahrenheit_to_celsius(212) is {got}, not 100"
