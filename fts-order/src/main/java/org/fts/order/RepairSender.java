package org.fts.order;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import org.fts.order.Wire.Entry;

/** Cuts a recovery source's repair into chunks of at most so many entries and about so many bytes, in order. */
final class RepairSender {
    private RepairSender() {
    }

    static void send(List<Entry> entries, int maxEntries, int maxBytes, Consumer<List<Entry>> out) {
        List<Entry> chunk = new ArrayList<>();
        int bytes = 0;
        for (Entry e : entries) {
            chunk.add(e);
            bytes += e.payload().length + 64;
            if (chunk.size() >= maxEntries || bytes >= maxBytes) {
                out.accept(chunk);
                chunk = new ArrayList<>();
                bytes = 0;
            }
        }
        if (!chunk.isEmpty()) {
            out.accept(chunk);
        }
    }
}
