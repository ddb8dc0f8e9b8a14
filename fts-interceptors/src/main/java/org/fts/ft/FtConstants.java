package org.fts.ft;

/** FT-CORBA numbers (OMG Fault Tolerant CORBA; the values TAO uses). */
public final class FtConstants {
    /** Tagged component of an IOGR profile: {@link FtGroupComponent}. */
    public static final int TAG_FT_GROUP = 27;
    /** Tagged component marking the primary's profile (not used by active replication). */
    public static final int TAG_FT_PRIMARY = 28;
    public static final int TAG_FT_HEARTBEAT_ENABLED = 29;
    /** Service context carrying the object group reference version. */
    public static final int FT_GROUP_VERSION = 12;
    /** Service context carrying {@code FTRequestServiceContext}: client id, retention id, expiration. */
    public static final int FT_REQUEST = 13;

    private FtConstants() {
    }
}
