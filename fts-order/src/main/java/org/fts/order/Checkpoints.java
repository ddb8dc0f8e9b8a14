package org.fts.order;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.fts.gc.FailStop;
import org.fts.gc.MemberId;
import org.fts.gc.internal.Marks;
import org.fts.log.SnapshotStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A member's checkpoints (docs/durability.md, "Checkpoints"): at a position of its history, the per-origin marks
 * (the highest oseq of each origin up to there, so that a resend of what the checkpoint holds is not ordered twice)
 * and the application's state, or no state (a member given a gap keeps the marks it was given until its
 * application installs a state and checkpoints it). Kept in {@link SnapshotStore} files under {@code <log
 * dir>/snap}, the two newest; written by a thread of their own, so that a large state never delays a sync.
 *
 * <pre>
 *   payload := marks:int (origin:utf oseq:long)* kind:byte [state]     kind: 0 none, 1 state, 2 the initial state
 * </pre>
 */
final class Checkpoints implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Checkpoints.class);

    /**
     * A checkpoint read back: {@code state} null when it holds none, then {@code initial} says whether the state at
     * {@code position} is the initial one (a founding again at {@code position + 1}) or unknown (a gap).
     */
    record Root(long position, Map<MemberId, Long> marks, byte[] state, boolean initial) {
    }

    private final Path dir;
    private final SnapshotStore store;
    private final ExecutorService writer;

    Checkpoints(Path logDir) throws IOException {
        this.dir = logDir.resolve("snap");
        this.store = new SnapshotStore(dir);
        this.writer = Executors.newSingleThreadExecutor(FailStop.threads("fts-checkpoint-" + logDir.getFileName()));
    }

    /** The newest readable checkpoint, if any; a damaged newest one falls back to the previous (logged). */
    Optional<Root> latest() throws IOException {
        Optional<SnapshotStore.Snapshot> s = store.latest();
        return s.isEmpty() ? Optional.empty() : Optional.of(decode(s.get().index(), s.get().payload()));
    }

    /** The position of the oldest checkpoint kept, or -1 if fewer than two are (nothing may be compacted yet). */
    long oldestKept() throws IOException {
        var files = store.files();
        return files.size() < 2 ? -1 : Long.parseLong(files.get(files.size() - 1).getFileName().toString()
                .replace(".snap", ""));
    }

    /** Writes a checkpoint now, on the caller's thread, durably ({@code state} null: {@code initial} says which). */
    void write(long position, Map<MemberId, Long> marks, byte[] state, boolean initial) throws IOException {
        store.write(position, encode(marks, state, initial));
        LOG.info("{}: checkpoint at {} written ({})", dir, position, state != null ? state.length + " bytes of state"
                : initial ? "the initial state" : "no state: the application is to fetch one");
    }

    /** Runs {@code job} on the checkpoint thread. */
    void later(Runnable job) {
        writer.execute(job);
    }

    @Override
    public void close() {
        writer.shutdownNow();
    }

    static byte[] encode(Map<MemberId, Long> marks, byte[] state, boolean initial) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + (state == null ? 0 : state.length));
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            Marks.write(out, names(marks));
            out.writeByte(state != null ? 1 : initial ? 2 : 0);
            if (state != null) {
                out.write(state);
            }
        } catch (IOException e) {
            throw new IllegalStateException("writing to memory", e);
        }
        return bytes.toByteArray();
    }

    private static Map<String, Long> names(Map<MemberId, Long> marks) {
        Map<String, Long> out = new HashMap<>();
        marks.forEach((k, v) -> out.put(k.name(), v));
        return out;
    }

    static Root decode(long position, byte[] payload) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload));
        Map<MemberId, Long> marks = new HashMap<>();
        Marks.read(in).forEach((name, mark) -> marks.put(new MemberId(name), mark));
        int kind = in.readByte();
        if (kind < 0 || kind > 2) {
            throw new IOException("checkpoint at " + position + ": unknown kind " + kind);
        }
        byte[] state = kind == 1 ? in.readAllBytes() : null;
        return new Root(position, marks, state, kind == 2);
    }
}
