# SPDX-License-Identifier: BSD-2-Clause
# bench/wall_queue.py — the README's wall-clock example ("Where the time goes"):
# run as monrun --wall=200 -o q.mon /usr/bin/python3 bench/wall_queue.py
# Two workers fed through a queue.Queue by a main thread that sleeps 2 ms
# between items; each worker does a little work per item.
import queue, threading, time

q = queue.Queue()

def work(item):
    return sum(i * i for i in range(item))

def worker():
    while True:
        item = q.get()
        if item is None:
            return
        work(item)

ts = [threading.Thread(target=worker) for _ in range(2)]
for t in ts:
    t.start()
for n in range(500):
    q.put(2000)
    time.sleep(0.002)
for t in ts:
    q.put(None)
for t in ts:
    t.join()
