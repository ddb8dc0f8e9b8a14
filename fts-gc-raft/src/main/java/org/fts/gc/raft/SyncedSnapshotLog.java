package org.fts.gc.raft;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Map;

import org.jgroups.protocols.raft.FileBasedLog;

/**
 * jgroups-raft's {@code FileBasedLog} with a snapshot that survives a power loss. jgroups-raft 1.1.4 writes the
 * snapshot file without syncing it (and the first one in place), then drops the log behind it: a power loss in
 * between can leave a short or empty snapshot and no log, the history gone (docs/group-communication.md,
 * "Snapshots"). Here the snapshot goes to a temporary file, synced, renamed over the old one and the directory
 * synced, before {@code setSnapshot} returns and RAFT truncates the log; when the log is not synced
 * ({@code fts.durability=memory}) neither is the snapshot, but it is still replaced whole. A truncation before
 * the first commit is skipped ({@link #truncate}).
 */
public class SyncedSnapshotLog extends FileBasedLog {
    static final String SNAPSHOT = "fts-snapshot.raft";
    private Path dir;

    @Override
    public void init(String logName, Map<String, String> args) throws Exception {
        super.init(logName, args);
        dir = Path.of(logName);
        Files.deleteIfExists(dir.resolve(SNAPSHOT + ".tmp"));   // a write the crash interrupted
    }

    @Override
    public void setSnapshot(ByteBuffer snapshot) {
        Path tmp = dir.resolve(SNAPSHOT + ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer b = snapshot.duplicate();
                while (b.hasRemaining()) {
                    ch.write(b);
                }
                if (useFsync()) {
                    ch.force(true);
                }
            }
            Files.move(tmp, dir.resolve(SNAPSHOT), StandardCopyOption.REPLACE_EXISTING,
                    StandardCopyOption.ATOMIC_MOVE);
            if (useFsync()) {
                try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
                    d.force(true);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the raft snapshot in " + dir, e);
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
        super.truncate(indexExclusive);
    }

    @Override
    public ByteBuffer getSnapshot() {
        Path p = dir.resolve(SNAPSHOT);
        try {
            return Files.exists(p) ? ByteBuffer.wrap(Files.readAllBytes(p)) : null;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the raft snapshot " + p, e);
        }
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
