package org.fts.gc;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fail-stop on local failure. An {@link Error} (OutOfMemoryError, StackOverflowError, ...) on a thread that
 * delivers, orders or executes leaves the process with a dead thread or a state that may differ from the
 * other replicas'. Neither may go on: the process logs the cause and halts with {@link #EXIT_CODE}, so that
 * a supervisor restarts it and it fetches the group's state like any restarted replica.
 *
 * <p>Every FTS thread that runs protocol, delivery or execution code is made by {@link #threads} (or wraps
 * its work in {@link #guard}); threads owned by other libraries (JGroups) call {@link #guard} around FTS code.
 */
public final class FailStop {
    /** The exit status of a replica stopped by a local failure (70: internal software error, sysexits.h). */
    public static final int EXIT_CODE = 70;
    /**
     * The exit status of a replica that stops because starting it again would change nothing (its build cannot speak
     * the group's wire version): the status a replica refused at start exits with, which a supervisor does not restart
     * ({@code RestartPreventExitStatus=2}).
     */
    public static final int REFUSED_EXIT_CODE = 2;
    private static final Logger LOG = LoggerFactory.getLogger(FailStop.class);
    private static final Instrumentation[] INSTRUMENTS = loadInstruments();

    private FailStop() {
    }

    /** Logs {@code cause} and stops the process; called from the failing thread. */
    public static void fatal(Throwable cause) {
        fail(Thread.currentThread(), cause);
    }

    /**
     * Logs {@code cause} and stops the process with {@link #REFUSED_EXIT_CODE}: it cannot go on, and starting it
     * again changes nothing until an operator acts (an {@link Instrumentation} may take it over, as for {@link #fatal}).
     */
    public static void refuse(Throwable cause) {
        try {
            for (int i = 0; i < INSTRUMENTS.length; i++) {
                if (INSTRUMENTS[i].fatal(Thread.currentThread(), cause)) {
                    return;
                }
            }
        } catch (Throwable ignored) {
            // halt anyway
        }
        try {
            LOG.error("REFUSED: {}; this replica stops (exit {}): starting it again changes nothing", cause.getMessage(),
                    REFUSED_EXIT_CODE);
        } catch (Throwable ignored) {
            // halt anyway
        }
        Runtime.getRuntime().halt(REFUSED_EXIT_CODE);
    }

    /** Runs {@code body}; an {@link Error} stops the process, exceptions propagate as they are. */
    public static void guard(Runnable body) {
        try {
            body.run();
        } catch (Error e) {
            fatal(e);
            throw e;
        }
    }

    /**
     * A factory of daemon threads named {@code name}, {@code name-1}, ... whose uncaught {@link Error}s stop
     * the process (uncaught exceptions are logged; the executor that owns the thread replaces it).
     */
    public static java.util.concurrent.ThreadFactory threads(String name) {
        java.util.concurrent.atomic.AtomicInteger count = new java.util.concurrent.atomic.AtomicInteger();
        return r -> {
            int n = count.getAndIncrement();
            Thread t = new Thread(r, n == 0 ? name : name + "-" + n);
            t.setDaemon(true);
            t.setUncaughtExceptionHandler(FailStop::uncaught);
            return t;
        };
    }

    /** The handler FTS threads carry: an {@link Error} stops the process. */
    public static void uncaught(Thread t, Throwable e) {
        if (e instanceof Error) {
            fail(t, e);
        } else {
            LOG.error("{}: uncaught exception", t.getName(), e);
        }
    }

    /**
     * Halts, unless an {@link Instrumentation} (a test kit's) takes the failure over. Nothing here may stop the halt:
     * the instrumentations were loaded with this class, the loop allocates nothing, and whatever one of them throws
     * (an {@code OutOfMemoryError} too) ends in the halt.
     */
    private static void fail(Thread thread, Throwable cause) {
        try {
            for (int i = 0; i < INSTRUMENTS.length; i++) {
                if (INSTRUMENTS[i].fatal(thread, cause)) {
                    return;
                }
            }
        } catch (Throwable ignored) {
            // halt anyway
        }
        halt(thread, cause);
    }

    /** The instrumentations on the class path (none in a deployment), loaded once; none if loading them fails. */
    private static Instrumentation[] loadInstruments() {
        try {
            return Instrumentation.installed().toArray(new Instrumentation[0]);
        } catch (Throwable t) {
            LOG.warn("no instrumentation: {}", t.toString());
            return new Instrumentation[0];
        }
    }

    private static void halt(Thread thread, Throwable cause) {
        try {
            LOG.error("FATAL: {} on thread {}; this replica stops (exit {}) rather than run on with a dead thread "
                    + "or diverging state; restarted, it fetches the group's state", cause, thread.getName(), EXIT_CODE,
                    cause);
        } catch (Throwable ignored) {
            // logging may itself fail under OutOfMemoryError: halt anyway
        }
        Runtime.getRuntime().halt(EXIT_CODE);
    }
}
