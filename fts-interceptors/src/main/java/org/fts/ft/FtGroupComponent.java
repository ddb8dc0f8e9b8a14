package org.fts.ft;

/**
 * The {@code TAG_FT_GROUP} tagged component that makes an IOR an IOGR: which fault-tolerance domain and object
 * group the profile belongs to, and the version of the group reference (FT-CORBA
 * {@code TagFTGroupTaggedComponent}).
 *
 * @param ftDomainId      the fault-tolerance domain (FTS: the group name)
 * @param objectGroupId   the object group (FTS: derived from the object id)
 * @param refVersion      the object group reference version (increases when the membership changes)
 */
public record FtGroupComponent(String ftDomainId, long objectGroupId, long refVersion) {
    /** The component's data: GIOP version 1.0, then the three fields, as a CDR encapsulation. */
    public byte[] encode() {
        return new Cdr.Writer().octet(1).octet(0).string(ftDomainId).ulonglong(objectGroupId).ulong(refVersion)
                .bytes();
    }

    /** Parses component data; {@link org.omg.CORBA.MARSHAL} if malformed. */
    public static FtGroupComponent decode(byte[] data) {
        Cdr.Reader r = new Cdr.Reader(data);
        r.octet();   // GIOP::Version major
        r.octet();   // minor
        return new FtGroupComponent(r.string(), r.ulonglong(), r.ulong());
    }
}
