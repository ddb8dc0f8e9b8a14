package org.fts.order;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Consumer;

import org.fts.gc.MemberId;
import org.fts.order.Wire.Entry;

/**
 * The protocol simulator's model of a replica's log ({@code --durability log}, docs/simulator.md): a {@link Disk} per
 * replica that outlives its incarnations, and, per incarnation, the entries appended but not synced yet. A sync is a
 * step the simulator draws; a crash loses what no sync covered, except a random prefix the writer had handed the file
 * system (a process crash keeps it); a storage fault damages an entry the disk holds, which the restarted member must
 * report and have repaired (docs/durability.md, "Storage faults"); a power loss whose sync mark lags may damage the batch
 * synced last, which recovery cuts as a torn write and reports as uncertain ({@link SimFaults#maybeDamageLastSync}).
 */
final class SimLog implements MemberLog {
    /** What a replica's disk holds across its incarnations. */
    static final class Disk {
        final TreeMap<Long, Entry> entries = new TreeMap<>();
        final Map<Long, Long> hints = new HashMap<>();
        /** Damaged positions: their identity is known (payload damaged) or not (header damaged). */
        final TreeMap<Long, Boolean> damaged = new TreeMap<>();
        DurableLog.EpochMeta meta = DurableLog.EpochMeta.NONE;
        /** The newest checkpoint: position, marks, the application's state (null: none), the initial state. */
        Checkpoints.Root root;
        /** The first position the log may hold (after a gap, or a founding again). */
        long start;
        /** The batch synced last, while no later record proves it synced (-1: proven, or none). */
        long lastSyncFirst = -1;
        long lastSyncLast = -1;
        /** What recovery cut and could not prove unsynced ({@link DurableLog.Loaded#uncertainFrom}). */
        long mayHoldFrom = Long.MAX_VALUE;
        /** The longest read lease an incarnation may have granted ({@link LeaseFile}). */
        long lease;

        long last() {
            return entries.isEmpty() ? start : Math.max(start, entries.lastKey());
        }
    }

    private final Disk disk;
    private final DurableLog.Loaded loaded;
    private final TreeMap<Long, Object[]> pending = new TreeMap<>();
    private long appended;
    private long durable;
    private Runnable onDurable = () -> { };
    private long pin = Long.MAX_VALUE;

    SimLog(Disk disk) {
        this.disk = disk;
        this.loaded = load(disk);
        this.appended = disk.last();
        this.durable = appended;
    }

    private static DurableLog.Loaded load(Disk d) {
        Checkpoints.Root root = d.root;
        long first = d.entries.isEmpty() ? d.last() + 1 : d.entries.firstKey();
        if (root != null && (root.position() < first - 1 || root.position() > d.last())) {
            root = null;   // as LogFiles.load: a checkpoint that does not meet its log (a power loss cut the log's tail
        }                  // behind it) is not used (simulator seed 2321 with power losses)
        long from = root != null ? root.position() : d.start;
        boolean rooted = root != null ? root.state() != null || root.initial() : from == 0;
        List<Entry> entries = new ArrayList<>();
        List<MemberLog.Damaged> damaged = new ArrayList<>();
        long hint = 0;
        for (Map.Entry<Long, Entry> e : d.entries.tailMap(from, false).entrySet()) {
            Boolean known = d.damaged.get(e.getKey());
            if (known == null) {
                entries.add(e.getValue());
                hint = Math.max(hint, d.hints.getOrDefault(e.getKey(), 0L));
            } else {
                Entry x = e.getValue();
                damaged.add(known ? new MemberLog.Damaged(x.gseq(), x.gseq(), x.origin(), x.oseq())
                        : new MemberLog.Damaged(x.gseq(), x.gseq(), null, 0));
            }
        }
        long last = Math.max(from, d.last());
        return new DurableLog.Loaded(d.meta, entries, from, Math.min(hint, last), root, rooted, damaged, last, 0,
                d.mayHoldFrom);
    }

    /** The simulator's sync step: everything appended so far becomes durable; true if anything did. */
    boolean sync() {
        if (pending.isEmpty()) {
            return false;
        }
        disk.lastSyncFirst = pending.firstKey();
        disk.lastSyncLast = pending.lastKey();
        pending.forEach((g, p) -> {
            disk.entries.put(g, (Entry) p[0]);
            disk.hints.put(g, (Long) p[1]);
        });
        pending.clear();
        durable = appended;
        onDurable.run();
        return true;
    }

    /**
     * The crash: what no sync covered is lost, but a prefix the writer had handed the file system (its records carry
     * the last sync point: then the batch synced last is proven).
     */
    void crash(Random rnd) {
        int keep = pending.isEmpty() ? 0 : rnd.nextInt(pending.size() + 1);
        if (keep > 0) {
            disk.lastSyncFirst = -1;
        }
        for (Map.Entry<Long, Object[]> p : pending.entrySet()) {
            if (keep-- <= 0) {
                break;
            }
            disk.entries.put(p.getKey(), (Entry) p.getValue()[0]);
            disk.hints.put(p.getKey(), (Long) p.getValue()[1]);
        }
        pending.clear();
    }

    @Override
    public DurableLog.Loaded loaded() {
        return loaded;
    }

    @Override
    public void start(Runnable callback) {
        this.onDurable = callback;
    }

    @Override
    public void append(Entry e, long commitHint) {
        if (e.gseq() != appended + 1) {
            throw new IllegalStateException("entry " + e.gseq() + " appended after " + appended);
        }
        pending.put(e.gseq(), new Object[] {e, commitHint});
        appended = e.gseq();
    }

    @Override
    public long durable() {
        return durable;
    }

    @Override
    public void truncateAfter(long gseq) {
        pending.tailMap(gseq, false).clear();
        disk.entries.tailMap(gseq, false).clear();
        disk.damaged.tailMap(gseq, false).clear();
        appended = Math.min(appended, gseq);
        durable = appended;
        disk.lastSyncFirst = -1;   // the mark is forced at a truncation
    }

    @Override
    public List<Entry> read(long from, long upTo) {
        List<Entry> out = new ArrayList<>();
        if (upTo <= from) {
            return out;
        }
        for (Map.Entry<Long, Entry> e : disk.entries.subMap(from, false, upTo, true).entrySet()) {
            if (!disk.damaged.containsKey(e.getKey())) {
                out.add(e.getValue());
            }
        }
        return out;
    }

    @Override
    public long pinBase() {
        long base = disk.entries.isEmpty() ? appended : disk.entries.firstKey() - 1;
        pin = Math.min(pin, base);
        return base;
    }

    @Override
    public void unpin() {
        pin = Long.MAX_VALUE;
    }

    @Override
    public void restartAt(long position, Map<MemberId, Long> marks, boolean initial) {
        pending.clear();
        disk.entries.clear();
        disk.hints.clear();
        disk.damaged.clear();
        disk.start = position;
        disk.root = new Checkpoints.Root(position, Map.copyOf(marks), null, initial);
        appended = position;
        durable = position;
        disk.lastSyncFirst = -1;
    }

    @Override
    public void checkpoint(long position, Map<MemberId, Long> marks, byte[] state, Consumer<Boolean> done) {
        boolean written = position <= durable;
        if (written) {
            disk.root = new Checkpoints.Root(position, Map.copyOf(marks), state, false);
        }
        done.accept(written);
    }

    @Override
    public long checkpointEvery() {
        return Long.MAX_VALUE;   // only the checkpoint a member takes at once when its log cannot rebuild its state
    }

    @Override
    public void writeMeta(DurableLog.EpochMeta m) {
        disk.meta = m;
    }

    @Override
    public void settleUncertain() {
        disk.mayHoldFrom = Long.MAX_VALUE;
    }

    @Override
    public long leaseOnRecord() {
        return disk.lease;
    }

    @Override
    public void recordLease(long nanos) {
        disk.lease = nanos;
    }

    @Override
    public List<MemberLog.Damaged> repair(List<Entry> copies) {
        for (Entry e : copies) {
            if (disk.damaged.containsKey(e.gseq())) {
                disk.entries.put(e.gseq(), e);
                disk.damaged.remove(e.gseq());
            }
        }
        List<MemberLog.Damaged> left = new ArrayList<>();
        disk.damaged.forEach((g, known) -> {
            Entry x = disk.entries.get(g);
            left.add(known ? new MemberLog.Damaged(g, g, x.origin(), x.oseq()) : new MemberLog.Damaged(g, g, null, 0));
        });
        return left;
    }

    @Override
    public org.fts.gc.LogFigures figures() {
        return new org.fts.gc.LogFigures(0, 0, 0, 0, 0);
    }

    @Override
    public void close() {
    }
}
