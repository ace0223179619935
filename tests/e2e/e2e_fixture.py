"""The end-to-end fixture shared by daemon_e2e.py, replay_e2e.py and crash_e2e.py.

A fake /sys in /dev/shm (many small files: kept off ext4) holding one
thermal zone, one cooling device and one cpufreq policy; the first-order
thermal model that drives it from the knobs the daemon writes; the real
coolhandd started on it (`Daemon`: stopped with SIGTERM or killed with
SIGKILL, its log readable afterwards; another may start on the same tree);
and `running()`, which starts the model and the daemon together, waits for
the daemon to say it runs, and always stops both (SIGTERM, then the
daemon's exit code in `Running.exit_code`).

Python 3 stdlib only. Each test's main sets DAEMON.
"""

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time

DAEMON = None

FAN = "class/thermal/cooling_device0/cur_state"
CPU = "devices/system/cpu/cpufreq/policy0/scaling_max_freq"
TEMP = "class/thermal/thermal_zone0/temp"

# The fan has 6 states and is found at state 0; the policy's 3 levels map
# onto 0, 2, 4 and 6. Level 0 is the state found at start (issue 10: a fan
# found throttled stays so at idle, tests/daemon/discovery_test.cpp), so the
# restore checks look at the fan only after it has been throttled.
FAN_MAX_STATE = 6
FAN_ORIGINAL = 0


def fan_state(level):
    """The cur_state the daemon writes for a level (max_level 3)."""
    return level * FAN_MAX_STATE // 3

CPU_MAX_KHZ = 2_000_000
CPU_MIN_KHZ = 400_000

def scratch_dir(prefix):
    """A new directory in /dev/shm (else the default temporary directory)."""
    return tempfile.mkdtemp(prefix=prefix, dir="/dev/shm" if os.path.isdir("/dev/shm") else None)


class Tree:
    """A fake /sys holding one zone, one cooling device and one cpufreq policy.

    root: the directory to build it in (default: a new scratch directory);
    the fan's max_state and the cur_state it is found at can be chosen."""

    def __init__(self, root=None, fan_max_state=FAN_MAX_STATE, fan_original=FAN_ORIGINAL,
                 temp_mc=35000):
        self.root = root or scratch_dir("coolhand-e2e-")
        self.write("class/thermal/thermal_zone0/type", "skin-therm")
        self.write(TEMP, temp_mc)
        self.write("class/thermal/cooling_device0/type", "Fan")
        self.write("class/thermal/cooling_device0/max_state", fan_max_state)
        self.write(FAN, fan_original)
        base = "devices/system/cpu/cpufreq/policy0/"
        self.write(base + "cpuinfo_min_freq", CPU_MIN_KHZ)
        self.write(base + "cpuinfo_max_freq", CPU_MAX_KHZ)
        self.write(CPU, CPU_MAX_KHZ)

    def path(self, rel):
        return os.path.join(self.root, rel)

    def write(self, rel, value):
        os.makedirs(os.path.dirname(self.path(rel)), exist_ok=True)
        tmp = self.path(rel) + ".tmp"
        with open(tmp, "w") as f:
            f.write(f"{value}\n")
        os.replace(tmp, self.path(rel))  # atomic: the daemon never reads half a value

    def read_int(self, rel, timeout=2.0):
        # The daemon replaces a fake tree's knob file whole (rename(2), see
        # RootedSysfs::write), so a read sees the old value or the new one,
        # never an empty file. Should one appear all the same, wait for a
        # value up to a real deadline, not a retry count a loaded machine
        # can exhaust.
        deadline = time.monotonic() + timeout
        while True:
            with open(self.path(rel)) as f:
                text = f.read().strip()
            if text:
                return int(text)
            if time.monotonic() >= deadline:
                raise ValueError(f"{rel} stayed empty for {timeout} s")
            time.sleep(0.005)

    def cleanup(self):
        shutil.rmtree(self.root, ignore_errors=True)


class ThermalModel(threading.Thread):
    """dT/dt = (T_amb + R * P - T) / tau, with P the demanded power scaled
    down by the CPU cap and by each fan state. tau is short (3 s) so the
    scenario fits in ~30 s of real time."""

    T_AMB = 30.0
    R_C_PER_W = 5.0
    TAU_S = 3.0
    DT_S = 0.1

    def __init__(self, tree):
        super().__init__(daemon=True)
        self.tree = tree
        self.temp_c = 35.0
        self.demand_w = 1.0
        self.sensor_present = True
        self.stop_flag = threading.Event()
        self.max_fan_seen = 0
        self.min_cpu_seen = CPU_MAX_KHZ
        self.fan_changes = 0
        self.max_temp_c = self.temp_c
        self._last_fan = None

    def effective_power(self):
        try:
            fan = self.tree.read_int(FAN)
            cpu = self.tree.read_int(CPU)
        except (OSError, ValueError):
            return self.demand_w
        self.max_fan_seen = max(self.max_fan_seen, fan)
        if self._last_fan is not None and fan != self._last_fan:
            self.fan_changes += 1
        self._last_fan = fan
        self.min_cpu_seen = min(self.min_cpu_seen, cpu)
        # Each level's worth of fan (2 states) takes 15 % off.
        return self.demand_w * (cpu / CPU_MAX_KHZ) * (1.0 - 0.15 * fan * 3 / FAN_MAX_STATE)

    def run(self):
        while not self.stop_flag.is_set():
            target = self.T_AMB + self.R_C_PER_W * self.effective_power()
            self.temp_c += (target - self.temp_c) * self.DT_S / self.TAU_S
            self.max_temp_c = max(self.max_temp_c, self.temp_c)
            if self.sensor_present:
                self.tree.write(TEMP, int(self.temp_c * 1000))
            time.sleep(self.DT_S)

    def reset_statistics(self):
        self.fan_changes = 0
        self.max_temp_c = self.temp_c

    def hide_sensor(self):
        self.sensor_present = False
        os.unlink(self.tree.path(TEMP))

    def show_sensor(self):
        self.sensor_present = True


class Daemon:
    """The real coolhandd on `tree` with `config` and the extra arguments.

    Its log is a file of its own beside the tree (several daemons may run on
    one tree in turn: a restart after SIGKILL); stop() and kill() remove it,
    and text() still returns what it held."""

    def __init__(self, tree, config, *extra):
        fd, self.log_path = tempfile.mkstemp(prefix=os.path.basename(tree.root) + "-",
                                             suffix=".log", dir=os.path.dirname(tree.root))
        self.log = os.fdopen(fd, "w+")
        self._final_text = None
        self.proc = subprocess.Popen(
            [DAEMON, "--config", config, "--sysfs-root", tree.root, *extra],
            stdout=self.log, stderr=subprocess.STDOUT)

    def text(self):
        if self._final_text is not None:
            return self._final_text
        with open(self.log_path) as f:
            return f.read()

    def wait_for_log(self, needle, timeout=10.0, count=1):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.text().count(needle) >= count:
                return True
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        # The daemon may have written the needle just before it exited.
        return self.text().count(needle) >= count

    def stop(self):
        """SIGTERM and the exit code; again: the same code."""
        return self._end(signal.SIGTERM)

    def kill(self):
        """SIGKILL (nothing restored, the state file left as it was) and the
        exit status (-9); again: the same."""
        return self._end(signal.SIGKILL)

    def _end(self, sig):
        if self._final_text is not None:
            return self.proc.returncode
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise
        finally:
            self._final_text = self.text()
            self.log.close()
            os.unlink(self.log_path)


def wait_until(predicate, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


class Running:
    """What running() yields: the model, the daemon and, once both have
    stopped, the daemon's exit code."""

    def __init__(self, model, daemon):
        self.model = model
        self.daemon = daemon
        self.exit_code = None


@contextlib.contextmanager
def running(tree, config, *extra, demand_w=None):
    """The model driving `tree` and coolhandd on it with `config` and the
    extra arguments; raises AssertionError, with the daemon's log, when it
    does not start."""
    model = ThermalModel(tree)
    if demand_w is not None:
        model.demand_w = demand_w
    model.start()
    daemon = Daemon(tree, config, *extra)
    run = Running(model, daemon)
    try:
        if not daemon.wait_for_log("running"):
            raise AssertionError("coolhandd did not start:\n" + daemon.text())
        yield run
    finally:
        model.stop_flag.set()
        model.join()
        run.exit_code = daemon.stop()
