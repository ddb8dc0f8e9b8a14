package org.fts.gc;

/**
 * Tests of the fail-stop path (in any module, from this test-jar): replaces {@link FailStop}'s halt, which shipped
 * code cannot do ({@code FailStop.setAction} is package-private).
 */
public final class FailStopHook {
    private FailStopHook() {
    }

    /** Makes {@code action} what a fatal local failure does; returns the previous action, to put back. */
    public static FailStop.Action replace(FailStop.Action action) {
        return FailStop.setAction(action);
    }
}
