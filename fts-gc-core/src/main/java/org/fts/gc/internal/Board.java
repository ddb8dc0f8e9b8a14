package org.fts.gc.internal;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.gc.Whiteboard;

/**
 * One member's copy of the {@link Whiteboard}, shared by the bindings: the entries it holds, and which of them it
 * still has to pass on. A binding asks it what to attach to each message it sends ({@link #forMulticast},
 * {@link #forUnicast}), hands it what messages carried ({@link #merge}), and on its refresh tick sends what is
 * still waiting ({@link #due}) on a message of its own.
 * <ul>
 *   <li>A changed own entry is <em>due</em> until a multicast carries it, or a unicast: the receiver of a unicast
 *       passes what it learns that way on with its own next multicast (under the sequencer ordering every
 *       member's acknowledgements go to the sequencer, whose multicasts then carry everyone's entries).</li>
 *   <li>A new view drops the entries of members not in it and makes the own entry due again, so a joiner learns
 *       it.</li>
 * </ul>
 * Thread-safe (one monitor; every method is short).
 */
public final class Board implements Whiteboard {
    /** One entry on the wire. */
    public record Item(MemberId member, long version, long[] values) {
    }

    private record Held(long version, long[] values, long receivedNanos) {
    }

    private final MemberId self;
    private final Map<MemberId, Held> entries = new HashMap<>();
    private final Set<MemberId> due = new LinkedHashSet<>();
    private final Map<MemberId, Long> sentTo = new HashMap<>();
    private Set<MemberId> members;
    private long version;
    private long[] own;

    public Board(MemberId self) {
        this.self = self;
    }

    @Override
    public synchronized void publish(long... values) {
        if (values.length > MAX_VALUES) {
            throw new IllegalArgumentException(values.length + " values; a whiteboard entry holds at most "
                    + MAX_VALUES);
        }
        if (own != null && Arrays.equals(own, values)) {
            return;
        }
        own = values.clone();
        version++;
        entries.put(self, new Held(version, own, System.nanoTime()));
        due.add(self);
    }

    @Override
    public synchronized Map<MemberId, Entry> entries() {
        long now = System.nanoTime();
        Map<MemberId, Entry> out = new HashMap<>();
        entries.forEach((m, h) -> out.put(m, new Entry(h.version(), h.values(),
                m.equals(self) ? 0 : (now - h.receivedNanos()) / 1_000_000)));
        return Map.copyOf(out);
    }

    /** The own entry as it goes on the wire, or null before the first {@link #publish}. */
    public synchronized Item own() {
        return own == null ? null : new Item(self, version, own);
    }

    /** The entries due, to ride on a multicast about to be sent (no longer due after); empty if none. */
    public synchronized List<Item> forMulticast() {
        if (due.isEmpty()) {
            return List.of();
        }
        List<Item> out = new ArrayList<>(due.size());
        for (MemberId m : due) {
            Held h = entries.get(m);
            if (h != null) {
                out.add(new Item(m, h.version(), h.values()));
            }
        }
        due.clear();
        return out;
    }

    /** The own entry, if {@code to} has not been sent this version yet, to ride on a unicast; else null. */
    public synchronized Item forUnicast(MemberId to) {
        if (own == null || sentTo.getOrDefault(to, 0L) >= version) {
            return null;
        }
        sentTo.put(to, version);
        due.remove(self);
        return new Item(self, version, own);
    }

    /** What is still due at a refresh tick, to send on a message of its own (no longer due after). */
    public List<Item> due() {
        return forMulticast();
    }

    /**
     * Entries a message from another member carried: each replaces the entry held for its writer if it is newer.
     * Learned from a unicast, a newer entry becomes due here, to be passed on.
     */
    public synchronized void merge(List<Item> items, boolean unicast) {
        long now = System.nanoTime();
        for (Item i : items) {
            if (i.member().equals(self) || (members != null && !members.contains(i.member()))) {
                continue;
            }
            Held known = entries.get(i.member());
            if (known == null || i.version() > known.version()) {
                entries.put(i.member(), new Held(i.version(), i.values(), now));
                if (unicast) {
                    due.add(i.member());
                }
            }
        }
    }

    /** A new view: only its members' entries stay, and the own entry is due again. */
    public synchronized void viewChanged(View view) {
        members = Set.copyOf(view.members());
        entries.keySet().retainAll(members);
        due.retainAll(members);
        sentTo.clear();
        if (own != null) {
            due.add(self);
        }
    }

    // --- the wire form, shared by the bindings ---

    public static int size(List<Item> items) {
        int n = 2;
        for (Item i : items) {
            n += 2 + i.member().name().length() * 3 + 8 + 1 + 8 * i.values().length;
        }
        return n;
    }

    public static void write(List<Item> items, DataOutput out) throws IOException {
        out.writeShort(items.size());
        for (Item i : items) {
            out.writeUTF(i.member().name());
            out.writeLong(i.version());
            out.writeByte(i.values().length);
            for (long v : i.values()) {
                out.writeLong(v);
            }
        }
    }

    public static List<Item> read(DataInput in) throws IOException {
        int n = in.readUnsignedShort();
        List<Item> items = new ArrayList<>(n);
        for (int k = 0; k < n; k++) {
            MemberId m = new MemberId(in.readUTF());
            long v = in.readLong();
            int count = in.readUnsignedByte();
            if (count > MAX_VALUES) {
                throw new IOException("a whiteboard entry of " + count + " values");
            }
            long[] values = new long[count];
            for (int j = 0; j < count; j++) {
                values[j] = in.readLong();
            }
            items.add(new Item(m, v, values));
        }
        return items;
    }
}
