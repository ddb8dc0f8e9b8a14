package org.fts.ft;

/**
 * The FT_REQUEST service context (FT-CORBA {@code FTRequestServiceContext}): which client sent the request
 * ({@code clientId}), which logical request it is across every reinvocation ({@code retentionId}), and until
 * when the client may retry it ({@code expirationTime}, TimeBase::TimeT: 100 ns since 1582-10-15).
 */
public record FtRequestContext(String clientId, int retentionId, long expirationTime) {
    /** Milliseconds from 1582-10-15 (the TimeT epoch) to 1970-01-01. */
    private static final long TIME_T_EPOCH_OFFSET_MS = 12_219_292_800_000L;

    /** TimeBase::TimeT (100 ns units since 1582-10-15) of {@code epochMillis}. */
    public static long timeT(long epochMillis) {
        return (epochMillis + TIME_T_EPOCH_OFFSET_MS) * 10_000L;
    }

    /** Milliseconds since 1970 of a TimeT. */
    public static long epochMillis(long timeT) {
        return timeT / 10_000L - TIME_T_EPOCH_OFFSET_MS;
    }

    /** The context data: a CDR encapsulation of the three fields. */
    public byte[] encode() {
        return new Cdr.Writer().string(clientId).ulong(retentionId & 0xffffffffL).ulonglong(expirationTime).bytes();
    }

    /** Parses context data; {@link org.omg.CORBA.MARSHAL} if malformed, {@link org.omg.CORBA.BAD_PARAM} if empty ids. */
    public static FtRequestContext decode(byte[] data) {
        Cdr.Reader r = new Cdr.Reader(data);
        String client = r.string();
        int retention = (int) r.ulong();
        long expiration = r.ulonglong();
        if (client.isEmpty()) {
            throw new org.omg.CORBA.BAD_PARAM("FT_REQUEST with an empty client_id");
        }
        return new FtRequestContext(client, retention, expiration);
    }
}
