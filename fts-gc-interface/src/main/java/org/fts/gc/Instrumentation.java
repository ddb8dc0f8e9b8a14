package org.fts.gc;

import java.util.List;
import java.util.Properties;
import java.util.ServiceLoader;

/**
 * What a test kit plugs into a process's group communication, found by {@link ServiceLoader}: it is told of every
 * channel created ({@link GroupChannels#create}), to inject faults into it or read its view, and it may take over the
 * halt of a fatal local failure ({@link FailStop}) to record it. Nothing FTS ships implements it, and a deployment has
 * none on its class path: channels are untouched and a fatal failure halts the process.
 */
public interface Instrumentation {
    /** {@code channel} was created for {@code config}, before its join. */
    default void created(Properties config, GroupChannel channel) {
    }

    /**
     * A fatal local failure on {@code thread}. Returns whether this instrumentation took it over; if none did, the
     * process halts ({@link FailStop#EXIT_CODE}).
     */
    default boolean fatal(Thread thread, Throwable cause) {
        return false;
    }

    /** Every instrumentation on the class path, loaded once. */
    static List<Instrumentation> installed() {
        return Installed.ALL;
    }

    /** The lazily loaded list (a holder class: loaded on first use, once). */
    final class Installed {
        private static final List<Instrumentation> ALL = ServiceLoader.load(Instrumentation.class,
                Instrumentation.class.getClassLoader()).stream().map(ServiceLoader.Provider::get).toList();

        private Installed() {
        }
    }
}
