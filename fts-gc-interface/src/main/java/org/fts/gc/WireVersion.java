package org.fts.gc;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The wire versions this build of FTS speaks: the formats of what a replica casts into the total order (batches),
 * of the state it transfers, and of what it tells the group as it joins (docs/upgrades.md). A group runs at one
 * version, the group's wire version, negotiated through the total order as etcd negotiates its cluster version: it
 * starts at {@link #FIRST} and moves up only once every member of the view, every voter among them, speaks the higher
 * one. A build speaks every version from {@link #lowest()} to {@link #highest()}; so a build one version ahead joins
 * a group of the older version, speaks it, and moves on with the group once the last older build has left.
 *
 * <p>The range is the build's, not a setting: it is read once from the resource {@value #RESOURCE} (keys
 * {@code lowest} and {@code highest}), which a release raises when it adds a format. A missing or malformed resource
 * stops the class from loading, naming it.
 */
public final class WireVersion {
    /** Where the build's range is written. */
    public static final String RESOURCE = "/org/fts/gc/wire-version.properties";
    /** The version every group starts at, and the format of a state or batch that names none. */
    public static final int FIRST = 1;
    /** The highest version the formats can name (one byte). */
    public static final int LIMIT = 255;

    private static final int LOWEST;
    private static final int HIGHEST;

    static {
        int[] range = read();
        LOWEST = range[0];
        HIGHEST = range[1];
    }

    private WireVersion() {
    }

    /** The lowest version this build speaks. */
    public static int lowest() {
        return LOWEST;
    }

    /** The highest version this build speaks: the one it moves a group to once every member speaks it. */
    public static int highest() {
        return HIGHEST;
    }

    /** Whether this build speaks {@code version}. */
    public static boolean speaks(int version) {
        return version >= LOWEST && version <= HIGHEST;
    }

    /** "wire versions 1-2" (or "wire version 1"), for messages that name what a build speaks. */
    public static String describe(int lowest, int highest) {
        return lowest == highest ? "wire version " + lowest : "wire versions " + lowest + "-" + highest;
    }

    /** {@link #describe(int, int)} of this build. */
    public static String describe() {
        return describe(LOWEST, HIGHEST);
    }

    /** {@code version}'s range packed in a long, as the whiteboard carries it (with the group's version, 0 if unknown). */
    public static long pack(int group, int lowest, int highest) {
        return (long) group << 32 | (long) lowest << 16 | highest;
    }

    /** The group version in a packed value (0: not known to that member). */
    public static int group(long packed) {
        return (int) (packed >>> 32) & 0xffff;
    }

    /** The lowest version in a packed value (0: the member published none). */
    public static int lowest(long packed) {
        return (int) (packed >>> 16) & 0xffff;
    }

    /** The highest version in a packed value (0: the member published none). */
    public static int highest(long packed) {
        return (int) packed & 0xffff;
    }

    private static int[] read() {
        try (InputStream in = WireVersion.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the build's wire versions are missing: no resource " + RESOURCE);
            }
            return parse(in);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + RESOURCE + ": " + e.getMessage(), e);
        }
    }

    /** The range {@code in} writes ({@link #RESOURCE}'s form). */
    static int[] parse(InputStream in) throws IOException {
        Properties p = new Properties();
        p.load(in);
        int lowest = number(p, "lowest");
        int highest = number(p, "highest");
        if (lowest < FIRST || highest < lowest || highest > LIMIT) {
            throw new IllegalStateException(RESOURCE + ": lowest=" + lowest + " highest=" + highest + " is not a range"
                    + " within " + FIRST + "-" + LIMIT);
        }
        return new int[] {lowest, highest};
    }

    private static int number(Properties p, String key) {
        String v = p.getProperty(key);
        try {
            return Integer.parseInt(v == null ? "" : v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalStateException(RESOURCE + ": " + key + "='" + v + "' is not a number", e);
        }
    }
}
