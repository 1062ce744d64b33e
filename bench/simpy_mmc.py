"""SimPy reference for bench/simulation.ts: the same M/M/c model and horizon, timed in the same run.

Usage: python3 bench/simpy_mmc.py <servers> <arrivals_per_minute> <mean_service_minutes> <horizon_minutes> <seed>
Prints one JSON line: customers arrived, served, the engine-equivalent event count (arrivals + service ends),
SimPy's own scheduled event count and the wall time.
"""
import json
import random
import sys
import time

import simpy


def main():
    servers, rate, mean_service, horizon, seed = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
    rng = random.Random(seed)
    env = simpy.Environment()
    clinician = simpy.Resource(env, capacity=servers)
    counts = {"arrivals": 0, "served": 0}

    def patient(env):
        with clinician.request() as request:
            yield request
            yield env.timeout(rng.expovariate(1.0 / mean_service))
        counts["served"] += 1

    def source(env):
        while True:
            yield env.timeout(rng.expovariate(rate))
            counts["arrivals"] += 1
            env.process(patient(env))

    env.process(source(env))
    started = time.perf_counter()
    env.run(until=horizon)
    wall = time.perf_counter() - started
    print(json.dumps({
        "arrivals": counts["arrivals"],
        "served": counts["served"],
        "equivalent_events": counts["arrivals"] + counts["served"],
        "simpy_events": next(env._eid) if hasattr(env, "_eid") else None,
        "wall_seconds": wall,
    }))


if __name__ == "__main__":
    main()
