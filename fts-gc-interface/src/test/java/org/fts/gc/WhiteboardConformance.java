package org.fts.gc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.fts.process.Waits;
import org.junit.jupiter.api.Test;

/**
 * The {@link Whiteboard}'s contract, run against every binding as part of {@link GroupChannelConformance}: each
 * test names the guarantee it checks (docs/placement.md).
 */
public abstract class WhiteboardConformance extends ConformanceSupport {
    private static final int PUBLISHES = 200;

    /**
     * Propagation and per-writer versions: every member publishes 200 times, with broadcasts flowing for the first
     * half (entries ride on them) and none for the second (they go on messages of their own). Readers at every
     * member sample all the while: a writer's entry never goes back, and its values are always those of its
     * version. In the end every member holds every writer's last entry.
     */
    @Test
    void whiteboardEntriesReachEveryoneAndNeverGoBack() throws Exception {
        List<Member> m = joinAll("a", "b", "c");
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<String> violation = new AtomicReference<>();
        List<Thread> readers = new ArrayList<>();
        for (Member x : m) {
            Thread t = new Thread(() -> sample(x, stop, violation), "board-reader-" + x.id());
            t.start();
            readers.add(t);
        }
        AtomicInteger sent = new AtomicInteger();
        List<Thread> senders = new ArrayList<>();
        for (Member x : m) {
            senders.add(sender(x, sent, i -> i < 300));
        }
        for (int k = 1; k <= PUBLISHES; k++) {
            for (int w = 0; w < m.size(); w++) {
                m.get(w).channel().whiteboard().publish(w, k);   // version k carries k
            }
            if (k == PUBLISHES / 2) {
                for (Thread t : senders) {
                    t.join(WAIT.toMillis());
                }
            }
            Thread.sleep(1);
        }
        for (Member x : m) {
            for (int w = 0; w < m.size(); w++) {
                MemberId writer = m.get(w).id();
                Waits.await(() -> version(x, writer) == PUBLISHES, WAIT,
                        () -> x.id() + " holds " + writer + "'s last entry: " + x.channel().whiteboard().entries());
            }
        }
        stop.set(true);
        for (Thread t : readers) {
            t.join(WAIT.toMillis());
        }
        assertNull(violation.get());
        Whiteboard.Entry own = m.get(0).channel().whiteboard().entries().get(m.get(0).id());
        assertEquals(0, own.ageMillis(), "the own entry is current");
        m.get(0).channel().whiteboard().publish(0, PUBLISHES);
        assertEquals(PUBLISHES, version(m.get(0), m.get(0).id()), "equal values make no new version");
        assertThrows(IllegalArgumentException.class,
                () -> m.get(0).channel().whiteboard().publish(new long[Whiteboard.MAX_VALUES + 1]));
    }

    /** Membership: a joiner learns the entries published before it came; a crashed member's entry goes. */
    @Test
    void whiteboardTeachesJoinersAndForgetsMembersThatLeave() {
        Member a = join("a");
        Member b = join("b");
        for (Member x : List.of(a, b)) {
            x.recorder().awaitView(v -> v.size() == 2, WAIT, x.id() + " sees a and b");
        }
        a.channel().whiteboard().publish(11);
        b.channel().whiteboard().publish(22);
        Member c = join("c");
        for (Member x : List.of(a, b, c)) {
            x.recorder().awaitView(v -> v.size() == 3, WAIT, x.id() + " sees c");
        }
        c.channel().whiteboard().publish(33);
        Map<MemberId, Long> expected = Map.of(a.id(), 11L, b.id(), 22L, c.id(), 33L);
        for (Member x : List.of(a, b, c)) {
            Waits.await(() -> expected.equals(values(x)), WAIT,
                    () -> x.id() + " holds everyone's entry: " + x.channel().whiteboard().entries());
        }
        crash(c.channel());
        for (Member x : List.of(a, b)) {
            x.recorder().awaitView(v -> !v.contains(c.id()), WAIT, x.id() + " sees c go");
            assertFalse(x.channel().whiteboard().entries().containsKey(c.id()), "c's entry went with c at " + x.id());
            assertEquals(Map.of(a.id(), 11L, b.id(), 22L), values(x));
        }
    }

    private static void sample(Member x, AtomicBoolean stop, AtomicReference<String> violation) {
        Map<MemberId, Long> last = new HashMap<>();
        while (!stop.get()) {
            for (Map.Entry<MemberId, Whiteboard.Entry> e : x.channel().whiteboard().entries().entrySet()) {
                Whiteboard.Entry entry = e.getValue();
                long before = last.getOrDefault(e.getKey(), 0L);
                if (entry.version() < before) {
                    violation.compareAndSet(null, x.id() + " saw " + e.getKey() + " go back from v" + before
                            + " to " + entry);
                }
                if (entry.value(1) != entry.version()) {
                    violation.compareAndSet(null, x.id() + " saw " + e.getKey() + "'s " + entry
                            + ": values of another version");
                }
                last.put(e.getKey(), entry.version());
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static long version(Member x, MemberId writer) {
        Whiteboard.Entry e = x.channel().whiteboard().entries().get(writer);
        return e == null ? 0 : e.version();
    }

    private static Map<MemberId, Long> values(Member x) {
        Map<MemberId, Long> out = new HashMap<>();
        x.channel().whiteboard().entries().forEach((m, e) -> out.put(m, e.value(0)));
        return out;
    }
}
