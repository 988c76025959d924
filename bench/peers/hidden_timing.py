"""How the peers are timed, the same way as skc's side (bench/src/timing.rs):

- GPU time with the host's work hidden: a one-thread spinner kernel of about 30 ms (a CuPy raw kernel spinning on
  clock64) is queued on the peer's stream first, then the start event, the peer's call and the stop event. While
  the spinner runs, the Python that prepares the peer's launch cannot leave the GPU idle inside the timed span. A
  sample counts only when the host's enqueue (from before the spinner's launch to the return of the peer's call)
  took less than VALID_FRACTION of the spinner's calibrated duration.
- The time a caller waits: wall-clock time of one call from host arrays to results on the host.

Both are medians over a stated number of runs after a warm-up, printed as one JSON object per measurement with
the card's name from the driver and the date. The GPU parts import CuPy when first used; the rest (medians,
validity, the JSON line) is plain Python.
"""
import datetime
import json
import math
import statistics
import time

SPINNER_TARGET_MS = 30.0
VALID_FRACTION = 0.8

SPINNER_SOURCE = r"""
extern "C" __global__ void spin(long long cycles) {
    long long start = clock64();
    while (clock64() - start < cycles) {
    }
}
"""


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def median(values):
    values = [v for v in values if v is not None and v == v]
    return statistics.median(values) if values else None


def summarise(samples, waits_ms, spinner_ms):
    """The timing fields of a measurement: samples are (gpu_ms, enqueue_ms) pairs, waits_ms the caller's waits."""
    valid = [gpu for gpu, enqueue in samples if enqueue < VALID_FRACTION * spinner_ms]
    return dict(gpu_ms=median(valid), wait_ms=median(waits_ms), runs=max(len(samples), len(waits_ms)),
                valid_runs=len(valid), enqueue_ms_max=max((e for _, e in samples), default=None),
                spinner_ms=spinner_ms, gpu_ms_all=[g for g, _ in samples], wait_ms_all=list(waits_ms))


def finite(value):
    """JSON's numbers: NaN and infinities become null, numpy scalars plain numbers, lists and dicts recursively."""
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def record(peer, bench, card, **fields):
    """One measurement's JSON line: peer, bench, card and date first, then the fields in the order given."""
    return json.dumps(finite(dict(peer=peer, bench=bench, card=card, date=utc_now(), **fields)), allow_nan=False)


def stream_pointer(stream):
    """The CUstream of a Numba or CuPy stream (or of an integer handle); 0 for the default stream."""
    if stream is None:
        return 0
    if isinstance(stream, int):
        return stream
    if hasattr(stream, "__cuda_stream__"):
        return int(stream.__cuda_stream__()[1])
    if hasattr(stream, "ptr"):
        return int(stream.ptr)
    handle = getattr(stream, "handle", stream)
    value = getattr(handle, "value", handle)
    return 0 if value is None else int(value)


class Spinner:
    """The spinner, calibrated on the current device to SPINNER_TARGET_MS."""

    def __init__(self):
        import cupy
        self.cupy = cupy
        self.kernel = cupy.RawKernel(SPINNER_SOURCE, "spin")
        props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.runtime.getDevice())
        self.card = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
        stream = cupy.cuda.Stream(non_blocking=True)
        probe = 10_000_000  # cycles: 5 ms at 2 GHz, then scaled to the target by what they took
        self.cycles = probe
        self._alone(stream)
        self.cycles = int(probe * SPINNER_TARGET_MS / self._alone(stream))
        self.ms = min(self._alone(stream) for _ in range(3))

    def queue(self, stream):
        # A RawKernel launches on CuPy's current stream.
        with stream:
            self.kernel((1,), (1,), (self.cupy.int64(self.cycles),))

    def _alone(self, stream):
        start, stop = self.cupy.cuda.Event(), self.cupy.cuda.Event()
        start.record(stream)
        self.queue(stream)
        stop.record(stream)
        stop.synchronize()
        return self.cupy.cuda.get_elapsed_time(start, stop)

    def external(self, peer_stream):
        """A CuPy view of the peer's stream, for the spinner and the events."""
        return self.cupy.cuda.ExternalStream(stream_pointer(peer_stream))

    def hidden(self, stream, call):
        """(gpu_ms, enqueue_ms) of `call`, which queues the peer's work on `stream` (a CuPy stream) and returns
        without waiting for it."""
        start, stop = self.cupy.cuda.Event(), self.cupy.cuda.Event()
        before = time.perf_counter()
        self.queue(stream)
        start.record(stream)
        call()
        stop.record(stream)
        enqueue_ms = (time.perf_counter() - before) * 1e3
        stop.synchronize()
        return self.cupy.cuda.get_elapsed_time(start, stop), enqueue_ms


def wall_ms(call):
    """Wall-clock milliseconds of `call` (which returns with its results on the host)."""
    before = time.perf_counter()
    call()
    return (time.perf_counter() - before) * 1e3
