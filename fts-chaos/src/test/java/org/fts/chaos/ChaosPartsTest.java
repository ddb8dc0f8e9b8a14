package org.fts.chaos;

import org.fts.checker.History;
import org.fts.checker.Linearizability;
import org.fts.checker.CounterCheck;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.fts.checker.History.Kind;
import org.fts.checker.History.Op;
import org.fts.checker.History.Outcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.omg.CORBA.BAD_PARAM;
import org.omg.CORBA.COMM_FAILURE;
import org.omg.CORBA.CompletionStatus;
import org.omg.CORBA.TRANSIENT;

/** The chaos run's pure parts: history recording, exception outcomes, options, the verdict. */
class ChaosPartsTest {

    @Test
    void aHistoryRecordsEachOperationAndShowsOnesInFlightAsInfo(@TempDir Path dir) throws Exception {
        History h = new History(System.nanoTime());
        History.Recorder c0 = h.recorder(0);
        History.Recorder c1 = h.recorder(1);
        c0.invoke("hello-0", Kind.WRITE, "c0-1");
        c0.ok(null);
        c1.invoke("hello-0", Kind.READ, null);
        c1.ok("c0-1");
        c1.invoke("counter", Kind.INCREMENT, null);
        c0.invoke("hello-1", Kind.READ, null);
        c0.fail();
        List<Op> ops = h.ops();
        assertEquals(4, ops.size());
        assertEquals("c0-1", ops.get(0).value());
        assertEquals(Outcome.OK, ops.get(1).outcome());
        Op inFlight = ops.stream().filter(o -> o.kind() == Kind.INCREMENT).findFirst().orElseThrow();
        assertEquals(Outcome.INFO, inFlight.outcome());
        assertEquals(History.NEVER, inFlight.complete());
        assertTrue(ops.stream().allMatch(o -> o.invoke() <= o.complete()));
        assertThrows(IllegalStateException.class, () -> c1.invoke("hello-0", Kind.READ, null), "one at a time");

        Path file = dir.resolve("history.tsv");
        History.write(ops, file);
        List<String> lines = Files.readAllLines(file);
        assertEquals(5, lines.size());
        assertTrue(lines.get(0).startsWith("# client\tkey"), lines::toString);
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("1\tcounter\tINCREMENT\t-\t") && l.endsWith("\t-\tINFO")),
                lines::toString);
    }

    @Test
    void onlyAnExceptionTheFtLayerRaisesWithoutRetryingAndCompletedNoIsAFailure() {
        assertEquals(Outcome.FAIL, Workload.outcomeOf(new BAD_PARAM("x", 0, CompletionStatus.COMPLETED_NO)));
        assertEquals(Outcome.INFO, Workload.outcomeOf(new BAD_PARAM("x", 0, CompletionStatus.COMPLETED_MAYBE)));
        // retried under one request id until it expired: an earlier attempt may have executed
        assertEquals(Outcome.INFO, Workload.outcomeOf(new TRANSIENT("minority", 0, CompletionStatus.COMPLETED_NO)));
        assertEquals(Outcome.INFO, Workload.outcomeOf(new COMM_FAILURE("x", 0, CompletionStatus.COMPLETED_NO)));
        assertEquals(Outcome.INFO, Workload.outcomeOf(new IllegalStateException("not CORBA")));
    }

    @Test
    void optionsHaveDefaultsAndTheReplayCommandRepeatsThem() {
        ChaosOptions d = ChaosOptions.parse();
        assertEquals(FaultPlan.Kind.MIXED, d.nemesis());
        assertEquals(60, d.seconds());
        assertEquals(10, d.clients());
        assertEquals(5, d.keys());
        assertEquals("first", d.placement(), "the product's default");
        assertEquals("declared", d.reads(), "every run exercises the read path");
        assertEquals(List.of("-Dfts.placement=first",
                "-Dfts.reads=IDL:fts_samples/HelloObj:1.0#get,IDL:fts_samples/Counter:1.0#value"), d.replicaJvmOptions());
        ChaosOptions o = ChaosOptions.parse("--nemesis", "partition", "--seconds", "30", "--seed", "-5",
                "--delivery", "uniform", "--batching", "tab", "--clients", "4", "--keys", "2", "--placement", "load",
                "--reads", "ordered");
        assertEquals(List.of("-Dfts.delivery=uniform", "-Dfts.batching=tab", "-Dfts.placement=load"),
                o.replicaJvmOptions());
        assertEquals("bin/fts chaos --nemesis partition --seconds 30 --seed -5 --clients 4 --keys 2 "
                + "--delivery uniform --batching tab --placement load --reads ordered", o.replayCommand());
        String[] replay = o.replayCommand().substring("bin/fts chaos ".length()).split(" ");
        assertEquals(o, ChaosOptions.parse(replay));
        assertThrows(IllegalArgumentException.class, () -> ChaosOptions.parse("--nemesis", "flood"));
        assertThrows(IllegalArgumentException.class, () -> ChaosOptions.parse("--delivery", "fast"));
        assertThrows(IllegalArgumentException.class, () -> ChaosOptions.parse("--placement", "random"));
        assertThrows(IllegalArgumentException.class, () -> ChaosOptions.parse("--reads", "cached"));
        ChaosOptions lease = ChaosOptions.parse("--reads", "lease");
        assertEquals(List.of("-Dfts.placement=first",
                "-Dfts.reads=IDL:fts_samples/HelloObj:1.0#get,IDL:fts_samples/Counter:1.0#value",
                "-Dfts.reads.lease=500ms"), lease.replicaJvmOptions(), "declared reads, and the lease");
        assertEquals(lease, ChaosOptions.parse(lease.replayCommand().substring("bin/fts chaos ".length()).split(" ")));
        assertThrows(IllegalArgumentException.class, () -> ChaosOptions.parse("--seconds"));
        assertThrows(IllegalArgumentException.class, () -> ChaosOptions.parse("--kill", "r0"));
    }

    @Test
    void hostsAndReplicasArePlacedAndTheNetworkNemesesNeedHosts() {
        ChaosOptions d = ChaosOptions.parse();
        assertEquals(3, d.replicas());
        assertFalse(d.hosts());
        assertEquals(List.of("127.0.0.1", "127.0.0.1", "127.0.0.1"), d.hostAddresses());
        ChaosOptions o = ChaosOptions.parse("--nemesis", "lossy", "--hosts", "--replicas", "5", "--seed", "9");
        assertTrue(o.hosts() && o.nemesis().needsNetFilter());
        assertEquals(List.of("127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6"), o.hostAddresses());
        assertTrue(o.replayCommand().contains(" --replicas 5 --hosts"), o::replayCommand);
        assertEquals(o, ChaosOptions.parse(o.replayCommand().substring("bin/fts chaos ".length()).split(" ")));
        assertEquals(ChaosOptions.parse("--hosts", "--nemesis", "netmixed", "--seed", "1"),
                ChaosOptions.parse("--seed", "1", "--nemesis", "netmixed", "--hosts"), "--hosts anywhere");
        for (String net : List.of("netpart", "bridge", "oneway", "lossy", "netmixed")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ChaosOptions.parse("--nemesis", net));
            assertTrue(e.getMessage().contains("needs --hosts"), e::getMessage);
            assertEquals(FaultPlan.Kind.parse(net), ChaosOptions.parse("--nemesis", net, "--hosts").nemesis());
        }
        assertFalse(ChaosOptions.parse("--nemesis", "kill", "--hosts").nemesis().needsNetFilter());
        assertThrows(IllegalArgumentException.class, () -> ChaosOptions.parse("--replicas", "2"));
        assertThrows(IllegalArgumentException.class, () -> ChaosOptions.parse("--replicas", "254", "--hosts"));
        assertEquals(254, ChaosOptions.parse("--replicas", "254").replicas(), "one address: no limit of addresses");
        assertTrue(ChaosOptions.USAGE.contains("--hosts") && ChaosOptions.USAGE.contains("netmixed"));
    }

    @Test
    void theLongestGapIsTheLongestStretchWithoutAnAnswer() {
        long s = 1_000_000_000L;
        List<Op> ops = List.of(
                new Op(0, "hello-0", Kind.WRITE, "a", 0, 1 * s, Outcome.OK),
                new Op(1, "hello-0", Kind.READ, null, 0, 2 * s, Outcome.OK),
                new Op(0, "counter", Kind.INCREMENT, null, 1 * s, 8 * s, Outcome.INFO),   // no answer
                new Op(1, "hello-1", Kind.READ, null, 2 * s, 9 * s, Outcome.FAIL),        // nor this
                new Op(2, "hello-1", Kind.READ, null, 3 * s, 7 * s, Outcome.OK),
                new Op(1, "hello-1", Kind.READ, null, 9 * s, History.NEVER, Outcome.INFO));
        assertEquals(5 * s, History.maxGapNanos(ops, 0, 10 * s), "2 s to 7 s");
        assertEquals(6 * s, History.maxGapNanos(ops, 0, 13 * s), "the end counts: 7 s to 13 s");
        assertEquals(5 * s, History.maxGapNanos(ops, -4 * s, 6 * s), "the start counts: -4 s to 1 s");
        assertEquals(4 * s, History.maxGapNanos(List.of(), 1 * s, 5 * s), "no answer at all");
        assertEquals(0, History.maxGapNanos(List.of(), 1 * s, 1 * s));
    }

    private static Verdict.Run run(List<Linearizability.Result> keys, CounterCheck.Report counter, long recoverMs,
                                   long convergeMs, int stuck, int exits) {
        List<Op> ops = List.of(new Op(0, "hello-0", Kind.WRITE, "a", 0, 1, Outcome.OK),
                new Op(0, "hello-0", Kind.READ, null, 2, 3, Outcome.INFO));
        return new Verdict.Run(ops, keys, counter, recoverMs, convergeMs, 4, stuck, exits, 2_345_000_000L, null);
    }

    @Test
    void theVerdictPassesOnlyWhenEveryCheckDoes() {
        ChaosOptions o = ChaosOptions.parse("--seed", "123", "--seconds", "45");
        List<Linearizability.Result> legal = List.of(
                new Linearizability.Result("hello-0", Linearizability.Verdict.LINEARIZABLE, 2, 3, null));
        CounterCheck.Report clean = CounterCheck.check(new int[] {1, 2}, 0, List.of(2, 2, 2));
        Verdict pass = Verdict.of(o, run(legal, clean, 120, 300, 0, 0));
        assertTrue(pass.passed(), pass::toString);
        assertEquals("CHAOS verdict=PASS seed=123 nemesis=mixed seconds=45 replicas=3 delivery=default "
                + "batching=default placement=first clients=10 ops=2 ok=1 info=1 fail=0 linearizable=true keys=1 lost=0 dup=0 over=0 "
                + "reordered=0 recover_ms=120 converge_ms=300 faults=4 max_gap_s=2.3", pass.line());

        Verdict illegal = Verdict.of(o, run(List.of(new Linearizability.Result("hello-0",
                Linearizability.Verdict.ILLEGAL, 2, 3, "stale")), clean, 120, 300, 0, 0));
        assertTrue(illegal.line().startsWith("CHAOS verdict=FAIL") && illegal.line().contains("linearizable=false"));
        Verdict unknown = Verdict.of(o, run(List.of(new Linearizability.Result("hello-0",
                Linearizability.Verdict.UNKNOWN, 2, 3, "budget")), clean, 120, 300, 0, 0));
        assertFalse(unknown.passed());
        assertTrue(unknown.line().contains("linearizable=unknown"));
        Verdict lost = Verdict.of(o, run(legal, CounterCheck.check(new int[] {1, 2}, 0, List.of(1, 2, 2)), 1, 1, 0, 0));
        assertTrue(!lost.passed() && lost.line().contains("lost=1"), lost::toString);
        assertFalse(Verdict.of(o, run(legal, clean, -1, 300, 0, 0)).passed(), "no recovery");
        assertFalse(Verdict.of(o, run(legal, clean, 120, -1, 0, 0)).passed(), "no convergence");
        assertFalse(Verdict.of(o, run(legal, clean, 120, 300, 1, 0)).passed(), "a client stuck");
        assertFalse(Verdict.of(o, run(legal, clean, 120, 300, 0, 1)).passed(), "a replica exited by itself");
    }
}
