package org.fts.gc.raft;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.fts.log.AtomicFiles;
import org.jgroups.protocols.raft.FileBasedLog;

/**
 * jgroups-raft's {@code FileBasedLog} with a snapshot that survives a power loss. jgroups-raft 1.1.4 writes the
 * snapshot file without syncing it (and the first one in place), then drops the log behind it: a power loss in
 * between can leave a short or empty snapshot and no log, the history gone (docs/group-communication.md,
 * "Snapshots"). Here the snapshot goes to a temporary file, synced, renamed over the old one and the directory
 * synced, before {@code setSnapshot} returns and RAFT truncates the log; when the log is not synced
 * ({@code fts.durability=memory}) neither is the snapshot, but it is still replaced whole. A truncation before
 * the first commit is skipped ({@link #truncate}).
 *
 * <p>Storage faults (docs/durability.md): the snapshot carries a checksum ({@code "FTSR" crc:u32 snapshot}, CRC-32C of
 * the snapshot), and one that fails it is an error naming the file, never a state taken as it is; the log is checked
 * before jgroups-raft reads it, and a damaged one is cut and its member quarantined ({@link Quarantine}). A write that
 * fails (a full disk, a dead one) stops the replica ({@link DiskFailure}), as on the jgroups binding: jgroups-raft
 * would print the error and run on, a member whose log no longer takes its entries.
 */
public class SyncedSnapshotLog extends FileBasedLog {
    static final String SNAPSHOT = "fts-snapshot.raft";
    /** Where jgroups-raft 1.1.4's {@code FileBasedLog} keeps the term, the vote and the commit index. */
    static final String METADATA = "metadata.raft";
    private static final int MAGIC = 0x46545352;   // "FTSR"
    private Path dir;
    /** The index the log must reach before this member votes again (0: it votes). */
    private long reach;
    /** Closed (a shutdown, a channel closed): a write failing now is not its disk's doing ({@link #stopping}). */
    private volatile boolean closed;

    @Override
    public void init(String logName, Map<String, String> args) throws Exception {
        dir = Path.of(logName);
        AtomicFiles.createDirectories(dir);
        Files.deleteIfExists(dir.resolve(SNAPSHOT + ".tmp"));   // a write the crash interrupted
        reach = Quarantine.prepare(dir, Files.exists(dir.resolve(SNAPSHOT)));
        super.init(logName, args);
    }

    @Override
    public long append(long index, org.jgroups.protocols.raft.LogEntries entries) {
        long last = super.append(index, entries);
        if (!stopping() && entries.size() > 0 && last < index + entries.size() - 1) {
            // jgroups-raft 1.1.4 prints the IOException of a failed append and returns as if nothing happened
            throw DiskFailure.stop(dir, "appending entries " + index + ".." + (index + entries.size() - 1) + " (the log ends at "
                    + last + "; jgroups-raft printed the cause on standard error)", null);
        }
        if (reach > 0) {
            quarantined();   // lifted as soon as the log is back, not at the next election
        }
        return last;
    }

    @Override
    public org.jgroups.protocols.raft.Log currentTerm(long term) {
        try {
            org.jgroups.protocols.raft.Log l = super.currentTerm(term);
            syncMetadata();
            return l;
        } catch (RuntimeException e) {
            throw diskFailed("recording term " + term, e);
        }
    }

    @Override
    public org.jgroups.protocols.raft.Log votedFor(org.jgroups.Address member) {
        try {
            org.jgroups.protocols.raft.Log l = super.votedFor(member);
            syncMetadata();
            return l;
        } catch (RuntimeException e) {
            throw diskFailed("recording a vote", e);
        }
    }

    /**
     * The term and the vote are synced in either mode: with {@code fts.durability=memory} jgroups-raft syncs nothing,
     * and a member that lost power could vote twice in one term (two leaders). Elections are rare, so this costs
     * nothing on the request path. (jgroups-raft keeps both in {@code metadata.raft}; an fsync of any descriptor of
     * the file syncs its data.)
     */
    private void syncMetadata() {
        if (useFsync()) {
            return;   // jgroups-raft synced it already
        }
        try (java.nio.channels.FileChannel c = java.nio.channels.FileChannel.open(dir.resolve(METADATA),
                java.nio.file.StandardOpenOption.WRITE)) {
            c.force(false);
        } catch (IOException e) {
            throw new UncheckedIOException("syncing " + dir.resolve(METADATA), e);
        }
    }

    @Override
    public org.jgroups.protocols.raft.Log commitIndex(long index) {
        try {
            return super.commitIndex(index);
        } catch (RuntimeException e) {
            throw diskFailed("recording commit index " + index, e);
        }
    }

    @Override
    public void deleteAllEntriesStartingFrom(long index) {
        try {
            super.deleteAllEntriesStartingFrom(index);
        } catch (RuntimeException e) {
            throw diskFailed("removing the entries from " + index, e);
        }
    }

    /** {@code e}, unless a failed write of an open log caused it: then the replica stops ({@link DiskFailure}). */
    private RuntimeException diskFailed(String what, RuntimeException e) {
        return stopping() ? e : DiskFailure.stopIfDisk(dir, what, e);
    }

    /**
     * Whether a write failing now is a shutdown's doing, not the disk's: the log is closed, or the writing thread was
     * interrupted (a channel's close stops RAFT's thread by interrupting it, and a file written under an interrupt is
     * closed: {@code ClosedByInterruptException}).
     */
    private boolean stopping() {
        return closed || Thread.currentThread().isInterrupted();
    }

    @Override
    public void close() {
        closed = true;
        super.close();
    }

    /**
     * Whether this member must stay out of elections: its log was cut at a damaged record and has not reached what it
     * held yet. Lifted (and its record removed) once it has.
     */
    synchronized boolean quarantined() {
        if (reach > 0 && lastAppended() >= reach) {
            try {
                Quarantine.lift(dir);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot remove the quarantine record in " + dir, e);
            }
            org.slf4j.LoggerFactory.getLogger(SyncedSnapshotLog.class).info("{}: the log reaches {} again: this member "
                    + "takes part in elections again", dir, reach);
            reach = 0;
        }
        return reach > 0;
    }

    @Override
    public void setSnapshot(ByteBuffer snapshot) {
        try {
            AtomicFiles.replace(dir.resolve(SNAPSHOT), framed(snapshot), useFsync());
        } catch (IOException e) {
            throw diskFailed("writing the snapshot",
                    new UncheckedIOException("cannot write the raft snapshot in " + dir, e));
        }
    }

    /**
     * Drops the log before {@code indexExclusive}, or nothing when nothing is committed yet: jgroups-raft 1.1.4's
     * {@code FileBasedLog} truncated at 0 loses its position cache, and every later append fails with an
     * {@code IllegalStateException} (a follower whose first append is larger than the snapshot interval snapshots
     * before its first commit; {@code SyncedSnapshotLogTest} is the reproduction).
     */
    @Override
    public void truncate(long indexExclusive) {
        if (Math.min(indexExclusive, commitIndex()) < 1) {
            return;
        }
        try {
            super.truncate(indexExclusive);
        } catch (RuntimeException e) {
            throw diskFailed("dropping the log before " + indexExclusive, e);
        }
    }

    /**
     * A snapshot installed from the leader: jgroups-raft 1.1.4 writes the log's new first record as zeros (it is read
     * back as an empty log, and the entries after it lost); it is written here ({@link RaftLogCheck#writeFirst}).
     */
    @Override
    public void reinitializeTo(long index, org.jgroups.protocols.raft.LogEntry entry) {
        try {
            super.reinitializeTo(index, entry);
            RaftLogCheck.writeFirst(dir.resolve(RaftLogCheck.FILE), entry.term(), index, entry.command(),
                    entry.offset(), entry.length(), useFsync());
        } catch (IOException | RuntimeException e) {
            throw diskFailed("starting the log again at the leader's snapshot (index " + index + ")",
                    e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e);
        }
    }

    @Override
    public ByteBuffer getSnapshot() {
        Path p = dir.resolve(SNAPSHOT);
        try {
            return Files.exists(p) ? unframed(p, ByteBuffer.wrap(Files.readAllBytes(p))) : null;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the raft snapshot " + p, e);
        }
    }

    private static ByteBuffer framed(ByteBuffer snapshot) {
        ByteBuffer body = snapshot.duplicate();
        java.util.zip.CRC32C c = new java.util.zip.CRC32C();
        c.update(body.duplicate());
        ByteBuffer out = ByteBuffer.allocate(8 + body.remaining()).putInt(MAGIC).putInt((int) c.getValue()).put(body);
        return out.flip();
    }

    /** The snapshot in {@code file}, its checksum verified (one written before checksums is taken as it is). */
    static ByteBuffer unframed(Path file, ByteBuffer all) throws IOException {
        if (all.remaining() < 8 || all.getInt(0) != MAGIC) {
            return all;
        }
        ByteBuffer body = all.duplicate().position(8);
        java.util.zip.CRC32C c = new java.util.zip.CRC32C();
        c.update(body.duplicate());
        if ((int) c.getValue() != all.getInt(4)) {
            throw new IOException(file + " is damaged (its checksum fails): this member cannot rebuild its state from it; "
                    + "move its directory aside and start it again to fetch the group's state (docs/durability.md, "
                    + "\"Storage faults\")");
        }
        byte[] out = new byte[body.remaining()];   // a buffer of its own: jgroups-raft reads its array from 0
        body.get(out);
        return ByteBuffer.wrap(out);
    }

    @Override
    public void delete() {
        try {
            Files.deleteIfExists(dir.resolve(SNAPSHOT));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        super.delete();
    }
}
