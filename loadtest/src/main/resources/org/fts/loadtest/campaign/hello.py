# FTS load campaign client for The Grinder 3.11 (Jython 2.5).
#
# Each Grinder thread is one CORBA client invoking set() with a 15-character string, synchronously, on its
# own HelloObj object (as in Friedman & Hadad, SRDS 2006). The threads of a worker process share one ORB.
# The client is plain CORBA: FTS appears only as ORB properties (the FT interceptor's initializer), which
# the campaign runner writes into grinder.properties with the prefix "fts.campaign.orb.".
#
# Phases, as in the paper, counted per client:
#   warm-up : fts.campaign.warmup requests (test 1), then tail requests (test 1) until every client of
#             every worker process has warmed up;
#   measured: fts.campaign.measure requests (test 2);
#   tail    : requests (test 3) until every client has finished its measured requests and the runner, having
#             sampled the replicas, leaves the marker "stop".
# Worker processes meet through marker files in fts.campaign.sync. A failed call is recorded as an error by
# Grinder and the client goes on. fts.campaign.deadline (ms since the epoch) ends every loop regardless.

from java.io import File
from java.lang import String, System, Thread, Throwable
from java.util import Properties
from java.util.concurrent.atomic import AtomicInteger
import jarray

from net.grinder.script import Test
from net.grinder.script.Grinder import grinder

from org.omg.CORBA import ORB
from fts_samples import HelloObjHelper

props = grinder.properties
PROCESSES = props.getInt("grinder.processes", 1)
THREADS = props.getInt("grinder.threads", 1)
WARMUP = props.getInt("fts.campaign.warmup", 10)
MEASURE = props.getInt("fts.campaign.measure", 10)
DEADLINE = props.getLong("fts.campaign.deadline", System.currentTimeMillis() + 600000)
SYNC = File(props.getProperty("fts.campaign.sync"))
STOP = File(SYNC, "stop")
VALUE = "fifteen-chars.."  # 15 characters, the paper's short request

orb_props = Properties()
for name in props.keySet():
    if name.startswith("fts.campaign.orb."):
        orb_props.setProperty(name[len("fts.campaign.orb."):], props.getProperty(name))
orb = ORB.init(jarray.array([], String), orb_props)

references = []
iogrs = open(props.getProperty("fts.campaign.iogrs"))
for line in iogrs:
    line = line.strip()
    if line:
        references.append(line.split(" ", 1)[1])
iogrs.close()

warmed = AtomicInteger()
failures = AtomicInteger()
finished = AtomicInteger()


def warm_set(obj):
    obj.set(VALUE)


def measured_set(obj):
    obj.set(VALUE)


def tail_set(obj):
    obj.set(VALUE)


Test(1, "set (warm-up)").record(warm_set)
Test(2, "set (measured)").record(measured_set)
Test(3, "set (tail)").record(tail_set)


def mark(kind, counter):
    # The last thread of this process to get here leaves a marker for the other processes.
    if counter.incrementAndGet() == THREADS:
        File(SYNC, "%s-%d" % (kind, grinder.processNumber)).createNewFile()


def everyone(kind):
    for p in range(PROCESSES):
        if not File(SYNC, "%s-%d" % (kind, p)).exists():
            return False
    return True


def invoke(call, obj):
    try:
        call(obj)
    except Throwable, t:
        # Grinder has recorded the failure. Say what it was (the first few per process), and back off a little
        # so that a dead service is not spun on.
        if failures.incrementAndGet() <= 5:
            grinder.logger.warn("set() failed: %s" % t)
        Thread.sleep(10)


class TestRunner:
    def __init__(self):
        index = grinder.processNumber * THREADS + grinder.threadNumber
        self.obj = HelloObjHelper.narrow(orb.string_to_object(references[index]))

    def __call__(self):
        for i in range(WARMUP):
            invoke(warm_set, self.obj)
        mark("warm", warmed)
        while not everyone("warm") and System.currentTimeMillis() < DEADLINE:
            invoke(warm_set, self.obj)
        for i in range(MEASURE):
            if System.currentTimeMillis() >= DEADLINE:
                break
            invoke(measured_set, self.obj)
        mark("done", finished)
        while not STOP.exists() and System.currentTimeMillis() < DEADLINE:
            invoke(tail_set, self.obj)
