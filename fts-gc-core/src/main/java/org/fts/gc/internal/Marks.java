package org.fts.gc.internal;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The codec of a checkpoint's marks: how far each origin's broadcasts were delivered at the cut, by the origin's
 * name. Both JGroups-based bindings store them this way (the jgroups binding's checkpoints, the raft binding's
 * snapshots):
 *
 * <pre>
 *   marks := count:int (origin:utf mark:long){count}      origins in name order
 * </pre>
 */
public final class Marks {
    private Marks() {
    }

    /** Writes {@code marks}, in the origins' name order (the same marks, the same bytes). */
    public static void write(DataOutput out, Map<String, Long> marks) throws IOException {
        out.writeInt(marks.size());
        for (Map.Entry<String, Long> m : new TreeMap<>(marks).entrySet()) {
            out.writeUTF(m.getKey());
            out.writeLong(m.getValue());
        }
    }

    /** Reads marks {@link #write} wrote; a negative count is damage. */
    public static Map<String, Long> read(DataInput in) throws IOException {
        int count = in.readInt();
        if (count < 0) {
            throw new IOException("marks: a count of " + count);
        }
        Map<String, Long> marks = new HashMap<>();
        for (int i = 0; i < count; i++) {
            marks.put(in.readUTF(), in.readLong());
        }
        return marks;
    }
}
