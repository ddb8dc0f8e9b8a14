package net.grinder.util;

import org.slf4j.Logger;

import net.grinder.common.GrinderException;

/**
 * A stand-in for The Grinder 3.11's class of the same name, placed before grinder-core on the Grinder JVMs'
 * classpath (and only there). The original parses {@code java.version} as "major.minor" and so refuses every
 * JVM since 9 ("17.0.15" reads as 17.0, which fails its "minor ≥ 6" test). This one asks
 * {@link Runtime#version()} and accepts Java 8 and later. Same public surface as the original.
 */
public final class JVM {
    private JVM() {
    }

    public static JVM getInstance() {
        return new JVM();
    }

    /** True when this JVM can run The Grinder; otherwise says why on {@code logger}. */
    public boolean haveRequisites(Logger logger) throws VersionException {
        if (!isAtLeastVersion(1, 8)) {
            logger.error("The Grinder needs Java 8 or later; this is {}", this);
            return false;
        }
        return true;
    }

    /** {@code (1, n)} means Java n, as in the original's numbering; {@code (n, m)} with n ≥ 9 means n.m. */
    public boolean isAtLeastVersion(int major, int minor) throws VersionException {
        int feature = Runtime.version().feature();
        int wanted = major == 1 ? minor : major;
        int wantedMinor = major == 1 ? 0 : minor;
        return feature > wanted || feature == wanted && Runtime.version().interim() >= wantedMinor;
    }

    @Override
    public String toString() {
        return System.getProperty("java.runtime.name") + " " + Runtime.version() + " ("
                + System.getProperty("java.vm.name") + ") on " + System.getProperty("os.name") + " "
                + System.getProperty("os.arch");
    }

    /** As in the original: the version could not be understood. */
    public static final class VersionException extends GrinderException {
        private static final long serialVersionUID = 1L;

        public VersionException(String reason) {
            super(reason);
        }
    }
}
