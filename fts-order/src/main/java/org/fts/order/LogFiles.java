package org.fts.order;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import org.fts.gc.MemberId;
import org.fts.order.Wire.Entry;
import org.fts.log.SegmentedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The files of a {@link DurableLog} (in its directory: {@code lock}, {@code epoch.meta}, {@code log/}, {@code
 * snap/}): opening and locking them, reading them back after a restart from the newest usable checkpoint
 * (docs/durability.md, "Checkpoints"), and the log's records.
 *
 * <pre>
 *   record meta := originLength:u8 origin oseq:u64 commitHint:u64     (checksummed with the record's header)
 *   payload     := the entry's payload                                 (the record's index is the entry's gseq)
 * </pre>
 */
final class LogFiles {
    private static final Logger LOG = LoggerFactory.getLogger(LogFiles.class);

    private LogFiles() {
    }

    /**
     * Opens (or creates) the log in {@code dir}, locks it against a second process, and reads it back.
     *
     * @throws UncheckedIOException naming the directory or file if it cannot be locked, read or trusted
     */
    static DurableLog open(Path dir) {
        return open(dir, DurableLog.MAX_SEGMENT_BYTES);
    }

    /** {@link #open(Path)} with segments of {@code segmentBytes}. */
    static DurableLog open(Path dir, long segmentBytes) {
        return open(dir, segmentBytes, org.fts.gc.Durability.CHECKPOINT.defaultValue());
    }

    /** {@link #open(Path, long)}, offering a checkpoint every {@code checkpointEvery} bytes of growth. */
    private static DurableLog open(Path dir, long segmentBytes, long checkpointEvery) {
        FileChannel lockChannel = null;
        try {
            org.fts.log.AtomicFiles.createDirectories(dir);
            lockChannel = FileChannel.open(dir.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = lockChannel.tryLock();
            } catch (java.nio.channels.OverlappingFileLockException e) {
                lock = null;   // held by this JVM
            }
            if (lock == null) {
                throw new IOException(dir + " is in use by another process (its lock file is held)");
            }
            EpochMetaFile meta = new EpochMetaFile(dir.resolve("epoch.meta"));
            SegmentedLog log = SegmentedLog.open(dir.resolve("log"), segmentBytes);
            Checkpoints checkpoints = new Checkpoints(dir);
            DurableLog.Loaded loaded;
            try {
                loaded = load(dir, log, meta.read(), checkpoints.latest().orElse(null));
            } catch (IOException | RuntimeException e) {
                checkpoints.close();
                log.close();
                throw e;
            }
            return new DurableLog(dir, log, meta, checkpoints, lockChannel, lock, loaded, checkpointEvery);
        } catch (IOException | RuntimeException e) {
            if (lockChannel != null) {
                try {
                    lockChannel.close();
                } catch (IOException ignored) {
                    // closing after a failure
                }
            }
            throw new UncheckedIOException(new IOException("FTS durable log in " + dir + ": " + e.getMessage(), e));
        }
    }

    /**
     * The log of {@code self} in {@code group} as {@code durability} configures it, or null without one.
     *
     * @throws org.fts.gc.GroupException naming the directory and the key if it cannot be opened
     */
    static DurableLog openFor(org.fts.gc.Durability durability, String group, MemberId self) {
        if (!durability.log()) {
            return null;
        }
        try {
            // segments a quarter of a checkpoint's growth: compaction drops whole segments
            return open(durability.dirOf(group, self.replica()),
                    Math.max(64L << 10, Math.min(DurableLog.MAX_SEGMENT_BYTES, durability.checkpointBytes() / 4)),
                    durability.checkpointBytes());
        } catch (UncheckedIOException e) {
            throw new org.fts.gc.GroupException(self + ": " + e.getCause().getMessage() + " ("
                    + org.fts.gc.Durability.DIR.name() + ")", e);
        }
    }

    /** Reads the log back from its newest usable checkpoint (docs/durability.md, "Checkpoints"). */
    static DurableLog.Loaded load(Path dir, SegmentedLog log, DurableLog.EpochMeta m, Checkpoints.Root root) throws IOException {
        long first = log.isEmpty() ? log.lastIndex() + 1 : log.firstIndex();
        if (root != null && (root.position() < first - 1 || root.position() > log.lastIndex())) {
            LOG.warn("{}: its newest checkpoint, at {}, does not meet its log ({} to {}): not used", dir,
                    root.position(), first, log.lastIndex());
            root = null;
        }
        if (root != null && root.state() == null && !root.initial() && !log.isEmpty() && log.firstIndex() == 1) {
            root = null;   // a gap's marks, before the log was filled from the start: the initial state roots it
        }
        long from = root != null ? root.position() : first - 1;
        boolean rooted = root != null ? root.state() != null || root.initial() : from == 0;
        List<Entry> entries = new ArrayList<>();
        List<MemberLog.Damaged> damaged = new ArrayList<>();
        long damagedBase = 0;
        for (org.fts.log.Damage d : log.damage()) {
            if (d.to() <= from) {
                damagedBase = Math.max(damagedBase, d.to());   // behind the checkpoint: never replayed, never given
            } else {
                MemberLog.Damaged x = damaged(d);
                damaged.add(new MemberLog.Damaged(Math.max(x.from(), from + 1), x.to(), x.origin(), x.oseq()));
            }
        }
        long hint = 0;
        for (long i = from + 1; i <= log.lastIndex(); i++) {
            try {
                Logged e = decode(log.read(i));
                entries.add(e.entry());
                hint = Math.max(hint, e.commitHint());
            } catch (org.fts.log.DamagedRecordException d) {
                // listed in damaged
            }
        }
        DurableLog.Loaded loaded = new DurableLog.Loaded(m, entries, from, Math.min(hint, log.lastIndex()), root, rooted,
                damaged, Math.max(from, log.lastIndex()), damagedBase, log.uncertainFrom());
        LOG.info("{}: log holds entries {} to {}, replayed from {} (commit point at least {}; {}){}; {}", dir, first,
                log.lastIndex(), from, loaded.commitHint(), rooted ? (root == null ? "from the initial state"
                        : "from a checkpoint") : "no state of its own: to be fetched",
                (damaged.isEmpty() ? "" : "; damaged, to be repaired from another replica: " + damaged)
                        + (log.uncertainFrom() == Long.MAX_VALUE ? "" : "; may have held entries from "
                        + log.uncertainFrom() + " on that a power loss damaged (the group settles them)"), m);
        return loaded;
    }

    /** A record's meta: the entry's origin and oseq, and a commit point known when it was held. */
    static byte[] meta(Entry e, long commitHint) {
        byte[] o = e.origin().name().getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(1 + o.length + 16).put((byte) o.length).put(o).putLong(e.oseq()).putLong(commitHint)
                .array();
    }

    /** A logged record read back: the entry, and the commit point known when it was held. */
    record Logged(Entry entry, long commitHint) {
    }

    static Logged decode(org.fts.log.Record r) {
        ByteBuffer b = ByteBuffer.wrap(r.meta());
        byte[] o = new byte[b.get() & 0xff];
        b.get(o);
        long oseq = b.getLong();
        long hint = b.getLong();
        return new Logged(new Entry(r.index(), new MemberId(new String(o, StandardCharsets.UTF_8)), oseq,
                r.payload()), hint);
    }

    /** A damaged stretch of the log, with the entry's identity when its record still says it. */
    static MemberLog.Damaged damaged(org.fts.log.Damage d) {
        if (d.meta() == null || d.from() != d.to()) {
            return new MemberLog.Damaged(d.from(), d.to(), null, 0);
        }
        Entry e = decode(new org.fts.log.Record(d.from(), d.meta(), new byte[0])).entry();
        return new MemberLog.Damaged(d.from(), d.to(), e.origin(), e.oseq());
    }
}
