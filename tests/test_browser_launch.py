import json
import os
import signal
import subprocess
import sys
import time
import urllib.request


def test_launch_reports_loopback_port_and_dies_on_close(browser):
    info = json.load(urllib.request.urlopen(f"{browser.http_url}/json/version", timeout=5))
    assert "Chrome" in info["Browser"]
    assert browser.ws_url.startswith("ws://127.0.0.1:")
    pid = browser.pid
    browser.close()
    assert not browser.alive()
    assert not os.path.exists(f"/proc/{pid}") or open(f"/proc/{pid}/stat").read().split()[2] == "Z"


def test_browser_dies_when_launcher_is_sigkilled(tmp_path, chromium_path):
    code = (
        "import time,sys\n"
        "from recorder.browser import launch_browser\n"
        "b=launch_browser(headless=True)\n"
        "print(b.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    pid = int(proc.stdout.readline())
    assert os.path.exists(f"/proc/{pid}")
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.time() + 5
    while time.time() < deadline and os.path.exists(f"/proc/{pid}"):
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
        time.sleep(0.05)
    assert not os.path.exists(f"/proc/{pid}"), "Chromium outlived the process that launched it"


def test_killed_browser_leaves_no_temp_folder_behind(tmp_path, chromium_path):
    """Chromium's own temporary folder (the process singleton's) lives in the profile, and the profile of a launcher
    killed by SIGKILL is swept by the next launch: thousands of runs leave nothing in /tmp."""
    from recorder.browser import launch_browser, sweep_stale_profiles

    code = (
        "import time\n"
        "from recorder.browser import launch_browser\n"
        "b=launch_browser(headless=True)\n"
        "print(b.pid, b.user_data_dir, flush=True)\n"
        "time.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    pid_text, profile = proc.stdout.readline().split()
    socket_dir = os.path.dirname(os.readlink(os.path.join(profile, "SingletonSocket")))
    assert socket_dir.startswith(profile + "/"), socket_dir
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.time() + 5
    while time.time() < deadline and os.path.exists(f"/proc/{pid_text}"):
        time.sleep(0.05)
    assert os.path.isdir(profile), "the killed launcher could not remove its profile"
    live = launch_browser(headless=True)
    try:
        assert not os.path.exists(profile), "the next launch did not sweep the dead browser's profile"
        assert live.user_data_dir.exists()
        assert live.user_data_dir not in sweep_stale_profiles(), "a live browser's profile was swept"
    finally:
        live.close()
    assert not live.user_data_dir.exists()


def test_a_deep_profile_path_still_launches(tmp_path, chromium_path):
    """A caller's profile too deep for the singleton's Unix socket inside it keeps Chromium's inherited TMPDIR."""
    from recorder.browser import launch_browser

    deep = tmp_path / ("d" * 60) / "profile"
    browser = launch_browser(headless=True, user_data_dir=deep)
    try:
        assert browser.alive()
        assert not os.readlink(deep / "SingletonSocket").startswith(str(deep))
    finally:
        browser.close()
