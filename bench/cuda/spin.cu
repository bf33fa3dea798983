// A guard kernel for timing (bench/SPEC.md, "Timing"): one thread sleeps about
// `iters` microseconds, so that the start event recorded after it is reached only once the
// host has finished preparing the timed launch, and host launch cost stays out of the time.
extern "C" __global__ void spin(unsigned iters) {
    for (unsigned i = 0; i < iters; ++i) {
        __nanosleep(1000);
    }
}
