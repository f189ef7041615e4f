"""Drives Snakemake's HTML report in headless Chromium as a reader would: a category, then a file's view.

The report is a JavaScript page (its content is in a script, rendered in the browser), so reading the file
as text says nothing about what a person sees. Chromium and ChromeDriver are Debian's packages
(chromium, chromium-driver), which `make test` installs.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from selenium import webdriver
from selenium.common.exceptions import ElementClickInterceptedException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement

# Headless as root on a machine without a network: no sandbox, no background connections.
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")


def _installed(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise RuntimeError(f"{name} is not installed: `make test` installs Debian's chromium and chromium-driver")
    return path


class ReportPage:
    """One open report; every lookup waits up to `timeout_s` for the page's scripts to render it."""

    def __init__(self, html: Path, timeout_s: float = 10.0):
        options = webdriver.ChromeOptions()
        options.binary_location = _installed("chromium")
        for flag in FLAGS:
            options.add_argument(flag)
        self.driver = webdriver.Chrome(service=Service(_installed("chromedriver")), options=options)
        self.driver.set_window_size(1400, 900)
        self.timeout_s = timeout_s
        self.url = html.resolve().as_uri()
        self.home()

    def close(self) -> None:
        self.driver.quit()

    def home(self) -> None:
        """A fresh load of the report (through a blank page: a load of the URL it is on may keep its state)."""
        self.driver.get("about:blank")
        self.driver.get(self.url)

    def _find(self, xpath: str, timeout_s: float | None = None) -> list[WebElement]:
        deadline = time.monotonic() + (self.timeout_s if timeout_s is None else timeout_s)
        while True:
            found = self.driver.find_elements(By.XPATH, xpath)
            if found or time.monotonic() > deadline:
                return found
            time.sleep(0.1)

    def _one(self, xpath: str) -> WebElement:
        found = self._find(xpath)
        if not found:
            raise AssertionError(f"the report shows no {xpath}")
        return found[0]

    def _click(self, xpath: str) -> None:
        """Click the element once nothing covers it (the page's scripts may still be rendering a panel)."""
        deadline = time.monotonic() + self.timeout_s
        while True:
            try:
                self._one(xpath).click()
                return
            except ElementClickInterceptedException:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def text(self) -> str:
        return self.driver.find_element(By.TAG_NAME, "body").text

    @staticmethod
    def _label(label: str) -> str:
        """A navigation entry (the last match: the page's title also reads "Report")."""
        return f"(//*[self::span or self::a or self::button][normalize-space(text())='{label}'])[last()]"

    def open(self, *labels: str) -> None:
        """Click through the navigation: a category, then a subcategory.

        A click the page's scripts were not yet listening for does nothing, so an entry is clicked again until
        the next one shows.
        """
        deadline = time.monotonic() + self.timeout_s
        for label, following in zip(labels, labels[1:], strict=False):
            self._click(self._label(label))
            while not self._find(self._label(following), timeout_s=1.0):
                if time.monotonic() > deadline:
                    raise AssertionError(f"opening {label!r} shows no {following!r}")
                self._click(self._label(label))
        self._click(self._label(labels[-1]))

    def listing(self, labels: tuple[str, ...], expected: list[str], tries: int = 3) -> list[str]:
        """The files listed after opening `labels` from a fresh load, sorted; where they are not `expected`,
        loaded and opened again (CI once showed extraction's figures after opening generation's: a click the
        page's scripts gave to the entry rendered before, and once no entry at all within the timeout after a
        fresh load). Returns the last listing, for the test to judge; the last try's failure to open is raised."""
        for attempt in range(tries):
            self.home()
            try:
                self.open(*labels)
            except AssertionError:
                if attempt == tries - 1:
                    raise
                continue
            listed = self.files(expected)
            if listed == sorted(expected):
                break
        return listed

    def files(self, expected: list[str]) -> list[str]:
        """The file names listed in the open (sub)category, sorted, once they are `expected` or time is up.

        Until the page re-renders, the table of the category opened before may still be shown.
        """
        deadline = time.monotonic() + self.timeout_s
        while True:
            listed = sorted(td.text for td in self._find("//tr/td[1]"))
            if listed == sorted(expected) or time.monotonic() > deadline:
                return listed
            time.sleep(0.1)

    @staticmethod
    def _row_button(path: str, icon: str) -> str:
        return f"//tr[td[1][normalize-space(text())='{path}']]//a[@iconname='{icon}']"

    def view_image(self, path: str) -> int:
        """Show a figure; its natural width in pixels (0 if the image did not decode)."""
        self._click(self._row_button(path, "eye"))
        name = Path(path).name
        img = self._one(f"//img[starts-with(@src, 'data:image/png') and contains(@src, 'filename={name}')]")
        return self.driver.execute_script("return arguments[0].naturalWidth", img)

    def view_page(self, path: str) -> str:
        """Show an HTML file the report holds; the text it shows (in the frame the report opens it in)."""
        self._click(self._row_button(path, "eye"))
        self.driver.switch_to.frame(self._one("//iframe"))
        try:
            return self._one("//body").text
        finally:
            self.driver.switch_to.default_content()

    def landing_figure(self) -> int:
        """The natural width in pixels of the first image the landing page embeds (0 if it did not decode)."""
        img = self._one("//img[starts-with(@src, 'data:image/png')]")
        return self.driver.execute_script("return arguments[0].naturalWidth", img)

    def details(self, path: str) -> str:
        """The page's text after opening a file's details (its caption among them)."""
        self._click(self._row_button(path, "information-circle"))
        self._one("//*[normalize-space(text())='DESCRIPTION' or normalize-space(text())='Description']")
        return self.text()
