package org.fts.ft;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@link FtConstants#FTS_GROUP_LOAD} reply context: for each replica that serves, its endpoint ({@code
 * host:port}, as in the IOGR's profiles) and its load index (open client connections; lower is less loaded), as
 * the answering replica's whiteboard showed them. A CDR encapsulation: a ulong count, then a string and a ulong
 * per replica.
 */
public record FtGroupLoad(Map<String, Long> loads) {
    public FtGroupLoad {
        loads = Map.copyOf(loads);
    }

    public byte[] encode() {
        Cdr.Writer w = new Cdr.Writer().ulong(loads.size());
        loads.forEach((endpoint, load) -> w.string(endpoint).ulong(Math.max(0, Math.min(load, 0xffffffffL))));
        return w.bytes();
    }

    /** @throws org.omg.CORBA.MARSHAL if malformed */
    public static FtGroupLoad decode(byte[] data) {
        Cdr.Reader r = new Cdr.Reader(data);
        long n = r.ulong();
        if (n > 4096) {
            throw new org.omg.CORBA.MARSHAL("an FTS_GROUP_LOAD of " + n + " replicas");
        }
        Map<String, Long> loads = new LinkedHashMap<>();
        for (long i = 0; i < n; i++) {
            loads.put(r.string(), r.ulong());
        }
        return new FtGroupLoad(loads);
    }
}
