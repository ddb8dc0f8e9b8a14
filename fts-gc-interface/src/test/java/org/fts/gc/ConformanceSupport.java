package org.fts.gc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.fts.testing.Recorder;
import org.fts.testing.Recorder.Delivery;
import org.fts.process.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the conformance suite ({@link GroupChannelConformance}) stands on: the binding's hooks (create, crash,
 * isolate, heal), a fresh group per test, members joined and closed, and the checks shared by its tests.
 */
public abstract class ConformanceSupport {
    protected static final Duration WAIT = Duration.ofSeconds(60);

    /** A member under test: its channel and what it has been given. */
    protected record Member(GroupChannel channel, Recorder recorder) {
        MemberId id() {
            return channel.self();
        }
    }

    protected final List<GroupChannel> opened = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    protected String group;

    /** A new, unjoined channel of the binding under test, with no quorum (every view is primary). */
    protected GroupChannel create(String memberName) {
        return create(memberName, 0);
    }

    /** A new, unjoined channel of the binding under test, for a group of {@code groupSize} replicas. */
    protected abstract GroupChannel create(String memberName, int groupSize);

    /**
     * Whether every view of a group created without a size ({@link #create(String)}) is primary (every binding
     * but raft, whose static membership always needs a majority).
     */
    protected boolean everyViewIsPrimary() {
        return true;
    }

    /** Makes {@code member} vanish abruptly, without a graceful leave. */
    protected abstract void crash(GroupChannel member);

    /** Cuts {@code member} off from the others (a partition), until {@link #heal}. */
    protected abstract void isolate(GroupChannel member);

    /** Ends {@link #isolate}: the partition merges. */
    protected abstract void heal(GroupChannel member);

    @BeforeEach
    void uniqueGroup() {
        group = "conf-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @AfterEach
    void closeEverything() throws InterruptedException {
        for (Thread t : threads) {
            t.interrupt();
            t.join(10_000);
        }
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
    }

    protected Member join(String name) {
        return join(name, new Recorder());
    }

    protected Member join(String name, Recorder recorder) {
        return join(name, recorder, 0);
    }

    protected Member join(String name, Recorder recorder, int groupSize) {
        GroupChannel ch = create(name, groupSize);
        opened.add(ch);
        ch.join(group, recorder);
        return new Member(ch, recorder);
    }

    /** Joins members in order (the first is the coordinator) and waits until all see the full view. */
    protected List<Member> joinAll(String... names) {
        List<Member> members = new ArrayList<>();
        for (String n : names) {
            members.add(join(n));
        }
        for (Member m : members) {
            m.recorder().awaitView(v -> v.size() == names.length, WAIT, m.id() + " sees " + names.length + " members");
        }
        return members;
    }

    protected static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Starts a thread that broadcasts "NAME:0", "NAME:1", ... until {@code keepGoing} says stop. */
    protected Thread sender(Member m, AtomicInteger sent, java.util.function.IntPredicate keepGoing) {
        Thread t = new Thread(() -> {
            try {
                for (int i = 0; keepGoing.test(i) && !Thread.currentThread().isInterrupted(); i++) {
                    m.channel().abcast(bytes(m.id() + ":" + i));
                    sent.incrementAndGet();
                }
            } catch (GroupException e) {
                // the member was crashed or closed under us: that is the point of some tests
            }
        }, "send-" + m.id());
        threads.add(t);
        t.start();
        return t;
    }

    /** Asserts FIFO per sender, sender identity, and no duplicates in one member's sequence. */
    protected static void assertWellFormed(MemberId at, List<Delivery> seq) {
        Map<String, Integer> next = new HashMap<>();
        Set<String> seen = new HashSet<>();
        for (Delivery d : seq) {
            assertTrue(seen.add(d.text()), at + " delivered " + d + " twice");
            String[] parts = d.text().split(":");
            assertEquals(parts[0], d.sender().name(), at + ": sender of " + d);
            int i = Integer.parseInt(parts[1]);
            int expected = next.getOrDefault(parts[0], 0);
            assertEquals(expected, i, at + ": FIFO order of " + parts[0] + "'s broadcasts");
            next.put(parts[0], i + 1);
        }
    }

    protected static long countFrom(List<Delivery> seq, MemberId sender) {
        return seq.stream().filter(d -> d.sender().equals(sender)).count();
    }

    /** Broadcasts {@code prefix + i} for i in [0, n) from {@code m}, on the calling thread. */
    protected static void broadcast(Member m, String prefix, int n) {
        for (int i = 0; i < n; i++) {
            m.channel().abcast(bytes(prefix + i));
        }
    }

    protected static List<String> texts(Recorder r, String prefix) {
        List<Delivery> all = Thread.holdsLock(r) ? r.deliveredUnsafe() : r.delivered();
        return all.stream().map(Delivery::text).filter(t -> t.startsWith(prefix)).toList();
    }

    /** Joins members of a group of {@code n} replicas in order, each once the previous ones see it. */
    protected List<Member> joinGroupOf(int n, String... names) {
        List<Member> members = new ArrayList<>();
        for (String name : names) {
            members.add(join(name, new Recorder(), n));
            for (Member m : members) {
                m.recorder().awaitView(v -> v.size() == members.size(), WAIT, m.id() + " sees " + members.size());
            }
        }
        return members;
    }

    protected static Epoch awaitEpoch(Member m, java.util.function.Predicate<Epoch> p, String what) {
        m.recorder().awaitState(r -> !r.epochsUnsafe().isEmpty() && p.test(r.epochsUnsafe().get(r.epochsUnsafe().size() - 1)),
                WAIT, () -> m.id() + ": " + what + " (epochs " + m.recorder().epochs() + ", not primary "
                        + m.recorder().notPrimaryReasons() + ")");
        return m.recorder().lastEpoch();
    }
}
