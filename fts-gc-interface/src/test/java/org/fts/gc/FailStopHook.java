package org.fts.gc;

/**
 * Tests of the fail-stop path (in any module, from this test-jar): what a fatal local failure does instead of halting,
 * through the test kit's {@link Instrumentation} ({@link TestInstrumentation}). With no action set, it halts as in a
 * deployment.
 */
public final class FailStopHook {
    /** What to do on a fatal local failure instead of the halt. */
    @FunctionalInterface
    public interface Action {
        void fail(Thread thread, Throwable cause);
    }

    private static volatile Action action;

    private FailStopHook() {
    }

    /** Makes {@code a} what a fatal local failure does (null: the halt); returns the previous action, to put back. */
    public static Action replace(Action a) {
        Action old = action;
        action = a;
        return old;
    }

    /** Whether an action took the failure over. */
    static boolean fatal(Thread thread, Throwable cause) {
        Action a = action;
        if (a == null) {
            return false;
        }
        a.fail(thread, cause);
        return true;
    }
}
