package org.fts.gc;

import java.util.Arrays;
import java.util.Map;

/**
 * JBora's whiteboard: each member of a group writes a few integers of its own (load indices, say), and every
 * member reads everyone's latest values locally, without a round trip. Reached through
 * {@link GroupChannel#whiteboard()}; docs/placement.md has the design and the tests that check it.
 *
 * <h2>Guaranteed</h2>
 * <ul>
 *   <li><b>Local reads.</b> {@link #entries()} never blocks and sends nothing.</li>
 *   <li><b>Per-writer versions.</b> Every {@link #publish} that changes the values makes a new entry under the
 *       writer's next version. A reader replaces an entry only by one of a higher version of the same writer:
 *       however messages are reordered or repeated, a member's entry as seen anywhere never goes back.</li>
 *   <li><b>Propagation.</b> A member of the view that stays connected sees another's latest entry within a few
 *       hundred milliseconds (the binding's refresh, {@link #REFRESH_MILLIS}), and usually much sooner: entries
 *       ride on the group's own messages when there are any, and an idle member sends its changed entry on a
 *       small message of its own. Entries are not ordered with broadcasts or views.</li>
 *   <li><b>Membership.</b> Entries are kept only for members of this member's current view: a member that
 *       leaves, crashes or is cut off disappears from {@link #entries()} with the view that removes it. A joiner
 *       learns the others' entries within the refresh.</li>
 * </ul>
 *
 * <h2>Not guaranteed</h2>
 * Agreement: two members may, for a moment, read different versions of a third's entry. Values are hints,
 * never inputs to replicated state (they are not in the total order; a servant must not read them).
 */
public interface Whiteboard {
    /** How often, at most, a member whose entry changed and that multicast nothing sends it on its own. */
    long REFRESH_MILLIS = 200;

    /**
     * How many values an entry holds at most: more than FTS publishes (9), so that a later build may add one without a
     * reader of this build refusing its entries.
     */
    int MAX_VALUES = 16;

    /**
     * This member's new values, replacing its previous ones. Does nothing if they are equal to the current ones.
     * Never blocks; safe from any thread.
     *
     * @throws IllegalArgumentException with more than {@link #MAX_VALUES} values
     */
    void publish(long... values);

    /**
     * The latest entry this member holds of each member of its current view, this member's own included once it
     * published; a member not heard from yet is absent. An immutable snapshot.
     */
    Map<MemberId, Entry> entries();

    /**
     * One member's values.
     *
     * @param version    the writer's version of them: higher is newer
     * @param values     the values (a copy: the caller may keep it)
     * @param ageMillis  how long ago this member received this entry (0 for its own)
     */
    record Entry(long version, long[] values, long ageMillis) {
        public Entry {
            values = values.clone();
        }

        /** The value at {@code index}, or 0 if the writer published fewer. */
        public long value(int index) {
            return index < values.length ? values[index] : 0;
        }

        @Override
        public long[] values() {
            return values.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Entry e && e.version == version && Arrays.equals(e.values, values);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(version) * 31 + Arrays.hashCode(values);
        }

        @Override
        public String toString() {
            return "v" + version + Arrays.toString(values);
        }
    }
}
