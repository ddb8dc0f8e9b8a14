package org.jacorb.orb;

/**
 * FTS's one reach into JacORB internals: the byte order of a request stream, which JacORB keeps protected.
 * Lives in JacORB's package for that reason only.
 */
public final class FtsStreamAccess {
    private FtsStreamAccess() {
    }

    public static boolean isLittleEndian(CDRInputStream in) {
        return in.getLittleEndian();
    }
}
