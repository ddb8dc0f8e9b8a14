package org.fts.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

/** What tools and tests that damage a log on purpose need to know of a segment file's layout (docs/durability.md). */
public final class SegmentFiles {
    private SegmentFiles() {
    }

    /**
     * Where the records of the segment file {@code segment} end: its size less the zeros written ahead of them
     * ({@link Segment#PREALLOCATE}), found by walking the records' lengths, without checking them. Past damage that
     * stops the walk, the end of the last byte that is not zero.
     */
    public static long recordsEnd(Path segment) throws IOException {
        byte[] data = Files.readAllBytes(segment);
        int pos = Math.min(Segment.HEADER, data.length);
        while (pos + Segment.RECORD_HEADER <= data.length && !Segment.zeros(data, pos)) {
            long next = pos + Segment.RECORD_HEADER + (ByteBuffer.wrap(data, pos + 8, 2).getShort() & 0xffff)
                    + (long) ByteBuffer.wrap(data, pos + 4, 4).getInt();
            if (next <= pos || next > data.length) {
                break;
            }
            pos = (int) next;
        }
        if (pos >= data.length || Segment.zeros(data, pos)) {
            return pos;
        }
        int n = data.length;
        while (n > pos && data[n - 1] == 0) {
            n--;
        }
        return n;
    }
}
