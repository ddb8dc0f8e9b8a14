package org.fts.order;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.fts.gc.FailStop;
import org.fts.gc.MemberId;
import org.fts.order.Wire.Entry;
import org.fts.log.SegmentedLog;
import org.fts.log.SyncStats;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One member's write-ahead log ({@code fts.durability=log}, docs/durability.md): the entries it holds, in
 * {@link SegmentedLog} records indexed by gseq, and its {@link EpochMeta} (the ballot it promised and the epoch it
 * opened). Protocol threads {@link #append} without waiting for the disk; a writer thread appends what is queued
 * and syncs once for all of it (group commit), then raises {@link #durable()} and calls {@code onDurable}, which
 * sends the acknowledgement: a member acknowledges only what its disk holds.
 *
 * <p>An {@link IOException} (a full disk, an I/O error) stops the process ({@link FailStop}) with an error naming
 * the directory: a member that cannot tell what its disk holds must not acknowledge, nor serve.
 */
public final class DurableLog implements MemberLog {
    /**
     * What a member persists besides its entries; {@code epochSeq} null when it never opened an epoch; {@code start}
     * the epoch's first position (its log holds the epoch's prefix only once it reaches {@code start - 1});
     * {@code lineage} the older epochs whose history it continued, nearest first.
     */
    record EpochMeta(long promised, long epochBallot, long epochView, MemberId epochSeq, boolean founding,
                     List<MemberId> members, long start, List<org.fts.gc.internal.EpochPlan.Link> lineage) {
        static final EpochMeta NONE = new EpochMeta(0, 0, 0, null, false, List.of(), 0, List.of());

        EpochMeta promising(long ballot) {
            return new EpochMeta(ballot, epochBallot, epochView, epochSeq, founding, members, start, lineage);
        }
    }

    /**
     * What {@link #open} found: the meta; the entries after {@code from} that verify (in order); the highest commit
     * point they record; the checkpoint at {@code from} that the entries continue, or null; whether the application's
     * state at {@code from} is known ({@code rooted}: a checkpoint with a state, or the initial state at 0); the
     * entries after {@code from} that exist but do not verify ({@code damaged}, a damaged disk); {@code last}, the last
     * entry the log holds, damaged or not; and {@code damagedBase}, the last damaged entry at or before {@code from}
     * (the log cannot give it for a repair; 0 if none).
     */
    record Loaded(EpochMeta meta, List<Entry> entries, long from, long commitHint, Checkpoints.Root root,
                  boolean rooted, List<MemberLog.Damaged> damaged, long last, long damagedBase, long uncertainFrom) {
        Loaded(EpochMeta meta, List<Entry> entries, long from, long commitHint, Checkpoints.Root root, boolean rooted) {
            this(meta, entries, from, commitHint, root, rooted, List.of(),
                    entries.isEmpty() ? from : entries.get(entries.size() - 1).gseq(), 0, Long.MAX_VALUE);
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(DurableLog.class);
    static final long MAX_SEGMENT_BYTES = 64L << 20;

    private final Path dir;
    private final SegmentedLog log;
    private final EpochMetaFile meta;
    private final Checkpoints checkpoints;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final Loaded loaded;
    /** Guards the log: the writer's appends and syncs, and truncations and reads from other threads. */
    private final Object io = new Object();
    /** Entries and their commit hints, queued for the writer; guarded by this object's monitor. */
    private final ArrayDeque<Object[]> pending = new ArrayDeque<>();
    private long appended;
    private volatile long durable;
    private volatile Runnable onDurable = () -> { };
    private volatile boolean closed;
    /** Compaction keeps every entry after this one (what the member reported it can repair from), or none is kept. */
    private volatile long pin = Long.MAX_VALUE;
    /** The log's growth, in bytes of payload, after which the member offers a checkpoint. */
    private final long checkpointEvery;
    private Thread writer;

    DurableLog(Path dir, SegmentedLog log, EpochMetaFile meta, Checkpoints checkpoints, FileChannel lockChannel,
                       FileLock lock, Loaded loaded, long checkpointEvery) {
        this.dir = dir;
        this.checkpointEvery = checkpointEvery;
        this.log = log;
        this.meta = meta;
        this.checkpoints = checkpoints;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.loaded = loaded;
        this.appended = log.lastIndex();
        this.durable = appended;
    }

    /** See {@link LogFiles#open(Path)}. */
    static DurableLog open(Path dir) {
        return LogFiles.open(dir);
    }

    /** See {@link LogFiles#open(Path, long)}. */
    static DurableLog open(Path dir, long segmentBytes) {
        return LogFiles.open(dir, segmentBytes);
    }

    /** See {@link LogFiles#openFor}. */
    public static DurableLog openFor(org.fts.gc.Durability durability, String group, MemberId self) {
        return LogFiles.openFor(durability, group, self);
    }

    /**
     * {@code GroupChannel.logFigures}: syncs, records per sync, p50 and p99 sync time, and the bytes of the log's
     * directory on disk (segments, snapshots, epoch files; -1 if a compaction removed a file while it was counted).
     */
    @Override
    public org.fts.gc.LogFigures figures() {
        SyncStats s = log.stats();
        return new org.fts.gc.LogFigures(s.syncs(), s.recordsPerSync(), s.percentileNanos(50) / 1000,
                s.percentileNanos(99) / 1000, diskBytes());
    }

    private long diskBytes() {
        try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.walk(dir)) {
            return files.filter(java.nio.file.Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            return -1;
        }
    }

    /** Starts the writer; {@code onDurable} runs on it after each sync that made more entries durable. */
    @Override
    public void start(Runnable onDurableCallback) {
        this.onDurable = onDurableCallback;
        writer = FailStop.threads("fts-log-" + dir.getFileName()).newThread(this::write);
        writer.start();
    }

    @Override
    public String toString() {
        return "FTS durable log in " + dir;
    }

    @Override
    public long checkpointEvery() {
        return checkpointEvery;
    }

    @Override
    public Loaded loaded() {
        return loaded;
    }

    /** Queues {@code e} (the next gseq), recorded with {@code commitHint}, a commit point known when it was held. */
    @Override
    public synchronized void append(Entry e, long commitHint) {
        pending.add(new Object[] {e, commitHint});
        notifyAll();
    }

    /** The last gseq the disk holds. */
    @Override
    public long durable() {
        return durable;
    }

    SyncStats stats() {
        return log.stats();
    }

    /** Durably drops every entry after {@code gseq} (a tail the group's history does not continue). */
    @Override
    public void truncateAfter(long gseq) {
        synchronized (io) {
            if (closed) {
                return;   // the channel is closing: nothing more is acknowledged
            }
            try {
                drainPending();
                log.truncateAfter(gseq);   // synced: what it keeps is durable
                appended = Math.min(appended, gseq);
                durable = appended;
            } catch (IOException e) {
                fail("truncating after " + gseq, e);
            }
        }
    }

    @Override
    public void settleUncertain() {
        synchronized (io) {
            if (closed) {
                return;
            }
            try {
                log.settleUncertain();
            } catch (IOException e) {
                fail("settling what a power loss left uncertain", e);
            }
        }
    }

    @Override
    public long leaseOnRecord() {
        try {
            return new LeaseFile(dir).read();
        } catch (IOException e) {
            fail("reading " + dir.resolve(LeaseFile.NAME), e);
            return 0;   // not reached but in tests
        }
    }

    @Override
    public void recordLease(long nanos) {
        try {
            new LeaseFile(dir).write(nanos);
        } catch (IOException e) {
            fail("writing " + dir.resolve(LeaseFile.NAME), e);
        }
    }

    /** The entries in ({@code from}, {@code upTo}] the log holds (a repair the member no longer holds in memory). */
    @Override
    public List<Entry> read(long from, long upTo) {
        synchronized (io) {
            List<Entry> out = new ArrayList<>();
            if (closed) {
                return out;
            }
            try {   // only what is on disk: anything trimmed from memory is stable, so synced (no drain here)
                for (long i = Math.max(from + 1, log.firstIndex()); i <= Math.min(upTo, log.lastIndex()); i++) {
                    try {
                        out.add(LogFiles.decode(log.read(i)).entry());
                    } catch (org.fts.log.DamagedRecordException d) {
                        LOG.warn("{}: entry {} does not verify: not given for a repair ({})", dir, i, d.getMessage());
                    }
                }
            } catch (IOException e) {
                fail("reading " + from + ".." + upTo, e);
            }
            return out;
        }
    }

    /**
     * The last entry this log cannot give for a repair (compacted, or before its start), and a promise that
     * compaction keeps every entry after it until {@link #unpin}: a recovery's repairs are planned on it.
     */
    @Override
    public long pinBase() {
        synchronized (io) {
            long base = log.isEmpty() ? appended : log.firstIndex() - 1;
            pin = Math.min(pin, base);
            return base;
        }
    }

    /** The recovery this member reported to is over: compaction may go on. */
    @Override
    public void unpin() {
        pin = Long.MAX_VALUE;
    }

    /**
     * Drops every entry (its history restarts after {@code position}: a gap, or a founding again) and records
     * {@code marks}, the history's marks at {@code position}, as a checkpoint without a state: the initial one
     * ({@code initial}), or none, and until the application installs the group's state and checkpoints it, a
     * restart has no state of its own.
     */
    @Override
    public void restartAt(long position, Map<MemberId, Long> marks, boolean initial) {
        synchronized (io) {
            if (closed) {
                return;
            }
            try {
                drainPending();
                log.truncateAfter(0);
                appended = position;
                durable = position;
                checkpoints.write(position, marks, null, initial);
            } catch (IOException e) {
                fail("restarting at " + position, e);
            }
        }
        LOG.info("{}: its history restarts after {} (a gap): the log is emptied", dir, position);
    }

    /**
     * Persists the application's {@code state} at {@code position} (with the history's {@code marks} there) on the
     * checkpoint thread, once the log holds {@code position}; then compacts the log behind the previous checkpoint,
     * and calls {@code done} with whether it was written.
     */
    @Override
    public void checkpoint(long position, Map<MemberId, Long> marks, byte[] state,
                           java.util.function.Consumer<Boolean> done) {
        checkpoints.later(() -> {
            boolean written = false;
            try {
                if (!awaitDurable(position, 30_000)) {
                    LOG.warn("{}: checkpoint at {} skipped: the log does not hold it ({} durable)", dir, position,
                            durable);
                    return;
                }
                checkpoints.write(position, marks, state, false);
                written = true;
                long older = checkpoints.oldestKept();
                if (older >= 0) {
                    synchronized (io) {
                        if (!closed) {
                            log.compactBefore(Math.min(older, pin) + 1);
                        }
                    }
                }
            } catch (IOException e) {
                if (!closed) {
                    fail("writing the checkpoint at " + position, e);
                }
            } finally {
                done.accept(written);
            }
        });
    }

    private boolean awaitDurable(long position, long millis) {
        long deadline = System.nanoTime() + millis * 1_000_000;
        synchronized (io) {
            while (durable < position && !closed) {
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0) {
                    return false;
                }
                try {
                    io.wait(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return !closed;
        }
    }

    /** The first entry the log holds, and how many segment files hold it (tests, figures). */
    long[] extent() {
        synchronized (io) {
            return new long[] {log.firstIndex(), log.lastIndex(), log.files().size()};
        }
    }

    /** Writes {@code m} durably (before the member reports its promise, or acknowledges an opened epoch). */
    @Override
    public void writeMeta(EpochMeta m) {
        try {
            meta.write(m);
        } catch (IOException e) {
            fail("writing " + meta.path(), e);
        }
    }

    private void write() {
        try {
            writeLoop();
        } catch (RuntimeException e) {
            if (!closed) {   // a writer that died silently would never let this member acknowledge again
                FailStop.fatal(new IllegalStateException(dir + ": the log's writer failed", e));
            }
        }
    }

    private void writeLoop() {
        while (!closed) {
            synchronized (this) {
                while (pending.isEmpty() && !closed) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
            boolean advanced;
            synchronized (io) {
                try {
                    drainPending();
                    log.sync();
                } catch (IOException e) {
                    if (closed) {
                        return;
                    }
                    fail("appending and syncing", e);
                }
                advanced = appended > durable;   // under io: a truncation cannot come in between
                durable = appended;
                io.notifyAll();   // awaitDurable
            }
            if (advanced) {
                onDurable.run();
            }
        }
    }

    /** Under {@link #io}: appends every queued entry, in order. */
    private void drainPending() throws IOException {
        List<Object[]> batch = new ArrayList<>();
        synchronized (this) {
            batch.addAll(pending);
            pending.clear();
        }
        for (Object[] p : batch) {
            Entry e = (Entry) p[0];
            log.append(e.gseq(), LogFiles.meta(e, (Long) p[1]), e.payload());
            appended = e.gseq();
        }
    }

    @Override
    public List<MemberLog.Damaged> repair(List<Entry> copies) {
        synchronized (io) {
            if (closed) {
                return List.of();
            }
            try {
                drainPending();
                List<org.fts.log.Record> records = new ArrayList<>();
                for (Entry e : copies) {
                    records.add(new org.fts.log.Record(e.gseq(), LogFiles.meta(e, 0), e.payload()));
                }
                List<org.fts.log.Damage> left = log.repair(records);
                LOG.info("{}: repaired {} damaged entries from copies that verify; {} left", dir, copies.size(),
                        left.size());
                return left.stream().map(LogFiles::damaged).toList();
            } catch (IOException e) {
                fail("repairing damaged entries", e);
                return List.of();
            }
        }
    }

    private void fail(String what, IOException e) {
        FailStop.fatal(new java.io.IOError(new IOException("FTS durable log in " + dir + ": " + what + " failed ("
                + e + "); this replica stops rather than acknowledge what its disk may not hold", e)));
        throw new UncheckedIOException(e);   // reached only where the fail-stop action returns (tests)
    }

    @Override
    public void close() {
        closed = true;
        synchronized (this) {
            notifyAll();
        }
        checkpoints.close();
        synchronized (io) {
            io.notifyAll();
        }
        if (writer != null) {
            try {
                writer.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (io) {
            try {
                drainPending();
                log.close();
            } catch (IOException e) {
                LOG.warn("{}: closing the log: {}", dir, e.toString());
            }
            try {
                lock.release();
                lockChannel.close();
            } catch (IOException e) {
                LOG.debug("{}: releasing the lock: {}", dir, e.toString());
            }
        }
    }
}
