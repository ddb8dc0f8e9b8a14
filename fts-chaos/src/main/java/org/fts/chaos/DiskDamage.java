package org.fts.chaos;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Damage to a stopped replica's log, as a failing disk and a torn write leave it (docs/durability.md, "Storage
 * faults"): one byte flipped somewhere in what it logged, and bytes torn off the end of its newest segment. The log is
 * found under the replica's directory: {@code log/<first index>.log} segments ({@code fts.gc=jgroups}), or
 * jgroups-raft's {@code raft.log/entries.raft} ({@code fts.gc=raft}).
 */
final class DiskDamage {
    /** What a replica had logged at some instant: its newest segment and that segment's size then. */
    record Mark(Path segment, long size) {
    }

    /** The smallest stretch a flip is aimed at: below it, the replica logged nothing worth damaging. */
    static final long MIN_REGION = 64;
    private static final int RAFT_HEADER = 26;

    private DiskDamage() {
    }

    static Mark mark(Path replicaDir) throws IOException {
        Path newest = newest(replicaDir);
        return new Mark(newest, logged(newest));
    }

    /**
     * How far {@code segment} holds records: both FTS's segments and jgroups-raft's file end in zeros written ahead
     * of their records (a flip there damages nothing, a tear there tears nothing), so the end of the last record.
     */
    static long logged(Path segment) throws IOException {
        if (!segment.getFileName().toString().equals("entries.raft")) {
            return org.fts.log.SegmentFiles.recordsEnd(segment);
        }
        long size = Files.size(segment);
        try (RandomAccessFile f = new RandomAccessFile(segment.toFile(), "r")) {
            long pos = 0;
            while (pos + RAFT_HEADER <= size) {   // magic:u8 (1) totalLength:u32 ...
                f.seek(pos);
                int total = f.readByte() == 1 ? f.readInt() : -1;
                if (total < RAFT_HEADER || pos + total > size) {
                    break;
                }
                pos += total;
            }
            return pos;
        }
    }

    /**
     * Flips one byte {@code percent} % into what was logged after {@code since} (into the newest segment if null, or
     * if that segment is newer than the mark's), then tears {@code tear} bytes off the newest segment's end.
     */
    static String damage(Path replicaDir, Mark since, int percent, int tear) throws IOException {
        Path newest = newest(replicaDir);
        long size = logged(newest);
        long from = since != null && since.segment().equals(newest) ? since.size() : 0;
        boolean rewritten = from > size;   // compacted since the mark (raft rewrites its file): its newest half
        if (rewritten) {
            from = size / 2;
        }
        StringBuilder did = new StringBuilder();
        if (size - from < MIN_REGION) {
            did.append("nothing flipped: ").append(newest.getFileName()).append(" grew by ").append(size - from)
                    .append(" bytes only");
        } else {
            long at = from + (size - from) * percent / 100;
            try (RandomAccessFile f = new RandomAccessFile(newest.toFile(), "rw")) {
                f.seek(at);
                int b = f.read();
                f.seek(at);
                f.write(b ^ 0x5a);
            }
            did.append(String.format(Locale.ROOT, "flipped the byte at offset %d of %s (%d bytes logged; %s)", at,
                    newest, size, since == null ? "its newest segment" : rewritten
                            ? "rewritten by a compaction since the mark: its newer half" : "logged since offset " + from));
        }
        if (tear > 0 && size > tear) {
            try (RandomAccessFile f = new RandomAccessFile(newest.toFile(), "rw")) {
                f.setLength(size - tear);
            }
            did.append("; tore ").append(tear).append(" bytes off its end");
        }
        return did.toString();
    }

    /** The replica's newest log segment. */
    static Path newest(Path replicaDir) throws IOException {
        Path raft = replicaDir.resolve("raft.log").resolve("entries.raft");   // jgroups-raft's, under its prefix
        if (Files.isRegularFile(raft)) {
            return raft;
        }
        Path log = replicaDir.resolve("log");
        try (Stream<Path> files = Files.isDirectory(log) ? Files.list(log) : Stream.empty()) {
            return files.filter(p -> p.getFileName().toString().endsWith(".log"))
                    .max(Comparator.comparing(p -> p.getFileName().toString()))
                    .orElseThrow(() -> new IOException("no log segment under " + replicaDir));
        }
    }
}
