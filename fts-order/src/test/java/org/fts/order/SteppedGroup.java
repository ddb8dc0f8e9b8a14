package org.fts.order;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiPredicate;

import org.fts.gc.Epoch;
import org.fts.gc.GroupConfig;
import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.gc.internal.DeliveryPump;
import org.fts.testing.Recorder;
import org.fts.testing.Recorder.Delivery;

/**
 * {@link TotalOrder} members over in-memory FIFO links, stepped one message at a time by a test: views are
 * installed at exactly the members a test names (so members can disagree about the view, as JGroups members
 * do around a partition), links can be cut in either direction, and members can crash. Deliveries go through
 * real {@link DeliveryPump}s to {@link Recorder}s.
 */
final class SteppedGroup implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(10);

    /** One member: its protocol, its inbox, what it delivered. */
    final class Node implements TotalOrder.Transport {
        final MemberId id;
        final Recorder recorder = new Recorder();
        final DeliveryPump pump;
        final TotalOrder order;
        final ArrayDeque<Object[]> inbox = new ArrayDeque<>();   // {src, bytes}
        /** With {@link #withLogs()}: this member's log, synced only when the test says ({@link #sync}). */
        final SimLog log;

        /** Offload: while true, this member's DATA multicasts wait in {@link #heldSends} (a stalled sender). */
        boolean holdSends;
        final List<Runnable> heldSends = new ArrayList<>();

        Node(String name) {
            this(name, logs ? new SimLog.Disk() : null);
        }

        /** A member whose log is {@code disk} (what an earlier incarnation left), or none if null. */
        Node(String name, SimLog.Disk disk) {
            id = new MemberId(name);
            pump = new DeliveryPump(name, recorder);
            pump.start();
            log = disk != null ? new SimLog(disk) : null;
            order = new TotalOrder(id, config, this, pump, log, ordering, task -> {
                if (holdSends) {
                    heldSends.add(task);
                } else {
                    task.run();
                }
            });
        }

        /** Runs the DATA multicasts held so far (a stalled sender resumes), then runs the group. */
        void releaseSends() {
            holdSends = false;
            List<Runnable> out = List.copyOf(heldSends);
            heldSends.clear();
            out.forEach(Runnable::run);
            run();
        }

        @Override
        public void unicast(MemberId to, byte[] msg) {
            route(id, to, msg);
        }

        @Override
        public void control(MemberId to, byte[] msg) {
            route(id, to, msg);   // one FIFO inbox per member: control and data share the order
        }

        /**
         * What this member's protocol had delivered when it sent each of its ACKs, in order (the timer's repeats at the
         * end of each {@link SteppedGroup#run} included).
         */
        final List<Long> deliveredAtAck = new ArrayList<>();

        @Override
        public void urgent(MemberId to, byte[] msg) {
            if (msg.length > 0 && msg[0] == Wire.Tag.ACK.code) {
                deliveredAtAck.add(deliveredByProtocol(id.name()));
            }
            route(id, to, msg);
        }

        @Override
        public void multicast(byte[] msg) {
            for (Node n : List.copyOf(nodes.values())) {
                if (!n.id.equals(id)) {
                    route(id, n.id, msg);
                }
            }
        }

        @Override
        public void multicastUrgent(byte[] msg) {
            multicast(msg);
        }

        /** Members this one asked the membership service to exclude ({@link TotalOrder.Transport#exclude}). */
        final List<MemberId> excluded = new ArrayList<>();

        @Override
        public void exclude(MemberId member) {
            excluded.add(member);
        }

        /** Hands {@code m} to this member as if {@code from} had sent it now (a late or repeated message). */
        void receiveForTest(String from, Wire.Msg m) {
            inbox.add(new Object[] {nodes.get(from).id, Wire.encode(m)});
        }

        /** Waits for at least {@code n} deliveries, then returns them all. */
        List<Delivery> delivered(int n) {
            recorder.awaitDelivered(n, WAIT);
            return recorder.delivered();
        }

        /** Everything delivered so far, once the pump handed over all it was given. */
        List<String> texts() {
            org.fts.process.Waits.await(pump::idle, WAIT, () -> id + "'s pump to be idle");
            return recorder.delivered().stream().map(Delivery::text).toList();
        }

        /** Waits until this member opened {@code count} epochs, and returns the last. */
        Epoch epoch(int count) {
            recorder.awaitState(r -> r.epochsUnsafe().size() >= count, WAIT, () -> id + " opens epoch #" + count
                    + " (has " + recorder.epochs() + ", not primary " + recorder.notPrimaryReasons() + ")");
            return recorder.epochs().get(count - 1);
        }

        /** Waits until this member opened the epoch of view {@code viewId}, and returns it. */
        Epoch epochOf(long viewId) {
            recorder.awaitState(r -> r.epochsUnsafe().stream().anyMatch(e -> e.id() == viewId), WAIT,
                    () -> id + " opens the epoch of view " + viewId + " (has " + recorder.epochs() + ", not primary "
                            + recorder.notPrimaryReasons() + ")");
            return recorder.epochs().stream().filter(e -> e.id() == viewId).findFirst().orElseThrow();
        }

        /** Waits until this member was told that view {@code viewId} is not primary; returns why. */
        String notPrimaryOf(long viewId) {
            String prefix = viewId + ": ";
            recorder.awaitState(r -> r.notPrimaryUnsafe().stream().anyMatch(x -> x.startsWith(prefix)), WAIT,
                    () -> id + " told that view " + viewId + " is not primary (has " + recorder.notPrimaryReasons()
                            + ", epochs " + recorder.epochs() + ")");
            return recorder.notPrimaryReasons().stream().filter(x -> x.startsWith(prefix)).findFirst().orElseThrow();
        }

        /** Waits until this member was told {@code count} times that its view is not primary; returns the last. */
        String notPrimary(int count) {
            recorder.awaitState(r -> r.notPrimaryUnsafe().size() >= count, WAIT, () -> id + " told not primary #"
                    + count + " (has " + recorder.notPrimaryReasons() + ", epochs " + recorder.epochs() + ")");
            return recorder.notPrimaryReasons().get(count - 1);
        }
    }

    final GroupConfig config;
    final Ordering ordering;
    final Map<String, Node> nodes = new LinkedHashMap<>();
    private final Set<MemberId> dead = new HashSet<>();
    private final Map<String, Integer> seqs = new LinkedHashMap<>();
    /** Which links drop messages (from, to). */
    BiPredicate<MemberId, MemberId> drop = (from, to) -> false;
    /** Which messages the links of {@link #drop} drop (all, when null). */
    Set<Class<? extends Wire.Msg>> dropOnly;
    private long viewId;
    private boolean logs;

    private final org.fts.gc.FailStopHook.Action halt;

    SteppedGroup(GroupConfig config) {
        this(config, Ordering.SEQUENCER);
    }

    SteppedGroup(GroupConfig config, Ordering ordering) {
        this.ordering = ordering;
        this.config = config;
        // An Error here (a broken lock-order assertion) fails the test instead of halting the test JVM.
        this.halt = org.fts.gc.FailStopHook.replace((thread, cause) -> { });
    }

    Node node(String name) {
        return nodes.get(name);
    }

    /** Members added after this keep a log ({@code fts.durability=log}), synced only by {@link #sync}. */
    SteppedGroup withLogs() {
        logs = true;
        return this;
    }

    /** Syncs {@code name}'s log (its writer's group commit); what follows from it is queued, not run. */
    boolean sync(String name) {
        return nodes.get(name).log.sync();
    }

    /** Runs, syncing every log whenever the group is quiet, until nothing is left to run or to sync. */
    void runSyncing() {
        for (int i = 0; i < 10_000; i++) {
            run();
            boolean any = false;
            for (Node n : alive()) {
                any |= n.log != null && n.log.sync();
            }
            if (!any) {
                return;
            }
        }
        throw new AssertionError("no quiescence");
    }

    /** The protocol's own count of what {@code name} delivered (before its delivery pump). */
    long deliveredByProtocol(String name) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(" delivered=(\\d+)")
                .matcher(nodes.get(name).order.describe());
        if (!m.find()) {
            throw new AssertionError("no delivered= in " + nodes.get(name).order.describe());
        }
        return Long.parseLong(m.group(1));
    }

    /** New members (not yet in any view). */
    /** Adds {@code name} with a log on {@code disk}: an incarnation after one that left it. */
    SteppedGroup addOn(String name, SimLog.Disk disk) {
        nodes.put(name, new Node(name, disk));
        return this;
    }

    SteppedGroup add(String... names) {
        for (String n : names) {
            nodes.put(n, new Node(n));
        }
        return this;
    }

    /** Installs a view of {@code members} (the first is coordinator) at each of them, then runs to quiescence. */
    long view(String... members) {
        long id = ++viewId;
        List<MemberId> ids = new ArrayList<>();
        for (String m : members) {
            ids.add(nodes.get(m).id);
        }
        for (String m : members) {
            Node n = nodes.get(m);
            n.order.viewChanged(new View(id, ids, n.id));
        }
        run();
        return id;
    }

    /**
     * Installs a view of {@code members} at {@code installers} only: the others never hear of it (they still
     * believe in their previous view), then runs to quiescence.
     */
    long viewAt(List<String> members, List<String> installers) {
        long id = ++viewId;
        List<MemberId> ids = new ArrayList<>();
        for (String m : members) {
            ids.add(nodes.get(m).id);
        }
        for (String m : installers) {
            Node n = nodes.get(m);
            n.order.viewChanged(new View(id, ids, n.id));
        }
        run();
        return id;
    }

    /** Members in {@code side} and the others can no longer talk to each other. */
    void partition(Set<String> side) {
        drop = (from, to) -> side.contains(from.name()) != side.contains(to.name());
    }

    void heal() {
        drop = (from, to) -> false;
        dropOnly = null;
    }

    void crash(String name) {
        Node n = nodes.get(name);
        dead.add(n.id);
        n.inbox.clear();
        n.pump.stop(1000);
    }

    List<Node> alive() {
        return nodes.values().stream().filter(n -> !dead.contains(n.id)).toList();
    }

    private void route(MemberId from, MemberId to, byte[] msg) {
        Node n = nodes.get(to.name());
        boolean dropped = drop.test(from, to) && (dropOnly == null || dropOnly.contains(Wire.decode(msg).getClass()));
        if (n != null && !dead.contains(to) && !dropped) {
            n.inbox.add(new Object[] {from, msg});
        }
    }

    /** Delivers queued messages round-robin, one per member per round, until every inbox is empty. */
    void run() {
        for (int round = 0; round < 1_000_000; round++) {
            boolean any = false;
            for (Node n : alive()) {
                Object[] m = n.inbox.poll();
                if (m != null) {
                    any = true;
                    n.order.receive((MemberId) m[0], (byte[]) m[1]);
                    n.order.afterBatch();
                }
            }
            if (!any) {
                alive().forEach(n -> n.order.ackIfMoved());
                if (alive().stream().allMatch(n -> n.inbox.isEmpty())) {
                    return;
                }
            }
        }
        throw new AssertionError("no quiescence");
    }

    /**
     * A read barrier at {@code name}: completes with the texts its member had delivered when it was ready, or fails
     * if it was refused. Does not run the group.
     */
    java.util.concurrent.CompletableFuture<List<String>> readBarrier(String name) {
        java.util.concurrent.CompletableFuture<List<String>> f = new java.util.concurrent.CompletableFuture<>();
        Node n = nodes.get(name);
        n.order.readBarrier(new org.fts.gc.ReadBarrier() {
            @Override
            public void ready() {
                f.complete(n.recorder.delivered().stream().map(Delivery::text).toList());
            }

            @Override
            public void refused(String why) {
                f.completeExceptionally(new IllegalStateException(why));
            }
        });
        return f;
    }

    /** {@code count} broadcasts "from:i" from member {@code from}, then runs. */
    void send(String from, int count) {
        sendNoRun(from, count);
        run();
    }

    /** {@code count} broadcasts "from:i" from member {@code from}, without running. */
    void sendNoRun(String from, int count) {
        Node n = nodes.get(from);
        for (int i = 0; i < count; i++) {
            int k = seqs.merge(from, 1, Integer::sum) - 1;
            n.order.abcast((from + ":" + k).getBytes(StandardCharsets.UTF_8));
        }
    }

    static long from(List<Delivery> seq, String origin) {
        return seq.stream().filter(d -> d.sender().name().equals(origin)).count();
    }

    @Override
    public void close() {
        org.fts.gc.FailStopHook.replace(halt);
        nodes.values().forEach(n -> n.pump.stop(1000));
    }
}
