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
    /**
     * FTS's own reply service context: the object's current IOGR (a CDR string, stringified), sent when the
     * request's FT_GROUP_VERSION was older than the group's. The id is in no OMG-assigned vendor range; it is
     * only ever sent to clients that sent FT_GROUP_VERSION.
     */
    public static final int FTS_GROUP_REFERENCE = 0x46545301;
    /**
     * FTS's own reply service context: each serving replica's load index ({@link FtGroupLoad}), sent now and then
     * to clients that sent FT_GROUP_VERSION; their interceptor fails over to the least loaded replica.
     */
    public static final int FTS_GROUP_LOAD = 0x46545302;
    /** FTS service context: which of a servant's ordered outcalls a request to a replica's relay is (UTF-8). */
    public static final int FTS_OUTCALL = 0x46545303;

    private FtConstants() {
    }
}
