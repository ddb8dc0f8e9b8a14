package org.fts.ft;

/**
 * The FT_GROUP_VERSION service context (FT-CORBA {@code FTGroupVersionServiceContext}): the object group
 * reference version the sender knows. Clients send theirs on requests; the GOA sends the group's on replies.
 */
public record FtGroupVersionContext(long version) {
    public byte[] encode() {
        return new Cdr.Writer().ulong(version).bytes();
    }

    /** Parses context data; {@link org.omg.CORBA.MARSHAL} if malformed. */
    public static FtGroupVersionContext decode(byte[] data) {
        return new FtGroupVersionContext(new Cdr.Reader(data).ulong());
    }
}
