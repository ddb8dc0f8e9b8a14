package org.fts.gc.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.fts.gc.Checkpoint;
import org.fts.gc.internal.Marks;
import org.junit.jupiter.api.Test;

/**
 * The raft binding's state machine and its sink (docs/reads.md, docs/group-communication.md "Snapshots"): what a
 * member that had applied entries is told when a snapshot takes the place of entries it missed.
 */
class LedgerTest {
    private final List<String> events = new ArrayList<>();

    private final Ledger.Sink sink = new Ledger.Sink() {
        @Override
        public void deliver(String origin, byte[] payload) {
            events.add("deliver " + origin + " " + new String(payload, StandardCharsets.UTF_8));
        }

        @Override
        public void applied(String origin, long oseq) {
            events.add("applied " + origin + " " + oseq);
        }

        @Override
        public void checkpoint(Checkpoint checkpoint) {
        }

        @Override
        public boolean mayRestore() {
            return true;
        }

        @Override
        public void restore(long position, byte[] state) {
            events.add("restore " + position);
        }

        @Override
        public void skipped(long missed) {
            events.add("skipped " + missed);
        }

        @Override
        public void snapshots(boolean possible) {
        }
    };

    private static byte[] entry(String origin, long oseq, String payload) {
        return Ledger.encode(origin, oseq, payload.getBytes(StandardCharsets.UTF_8));
    }

    /** A snapshot as a leader writes it: its index, then Retained's base (position, marks, state) and tail. */
    private static byte[] snapshot(long position, Map<String, Long> marks, List<byte[]> tail) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeLong(100);
        out.writeInt(Retained.FORMAT);
        out.writeLong(position);
        Marks.write(out, marks);
        byte[] state = "state".getBytes(StandardCharsets.UTF_8);
        out.writeInt(state.length);
        out.write(state);
        out.writeInt(tail.size());
        for (byte[] e : tail) {
            out.writeInt(e.length);
            out.write(e);
        }
        out.flush();
        return bytes.toByteArray();
    }

    /**
     * A position reached by entries applied without delivery must never release a read before the application knows
     * it fell behind: chaos partition seed 23 on raft read a stale value at a member healed from an isolation, whose
     * read barrier was released by the tail of the snapshot it was sent, queued on its delivery thread ahead of the
     * notice that it missed entries (its state still looked current). The notice now comes first.
     */
    @Test
    void aSnapshotAppliedWithoutDeliveryTellsTheApplicationItFellBehindBeforeAnyOfItsPositions() throws Exception {
        Ledger ledger = new Ledger("f", sink, new Retained("f", 1 << 20, 1 << 22), () -> 0L);
        ledger.apply(entry("a", 1, "one"), 0, entry("a", 1, "one").length, false);
        ledger.apply(entry("a", 2, "two"), 0, entry("a", 2, "two").length, false);
        assertEquals(List.of("deliver a one", "applied a 1", "deliver a two", "applied a 2"), events);
        events.clear();

        byte[] s = snapshot(5, Map.of("a", 5L), List.of(Ledger.NOOP, entry("a", 6, "six"), entry("a", 7, "seven")));
        ledger.readContentFrom(new DataInputStream(new ByteArrayInputStream(s)));

        assertEquals(List.of("skipped 5", "applied a 6", "applied a 7"), events,
                "told it missed 3 of the base's positions and the tail's 2, before any of them counts as applied; "
                        + "nothing delivered");
        assertEquals(7, ledger.applied());
    }
}
