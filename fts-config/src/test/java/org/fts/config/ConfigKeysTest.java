package org.fts.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import org.junit.jupiter.api.Test;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.AbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/**
 * The registry is every {@link ConfigKeyProvider} on the class path, and start-up names each unknown
 * {@code fts.*} property with the closest known key.
 */
class ConfigKeysTest {

    @Test
    void theRegistryHoldsEveryProvidersKeysSortedByName() {
        List<String> names = ConfigReference.allKeys().stream().map(ConfigKey::name).toList();
        assertEquals(List.of("fts.sample.threads", "fts.sample.timeout"), names);
        assertTrue(ConfigReference.markdownTable().contains("| `fts.sample.timeout` | `5s` |"),
                ConfigReference.markdownTable());
    }

    @Test
    void anUnknownFtsKeyIsWarnedAboutWithTheClosestKnownOne() {
        Properties p = new Properties();
        p.setProperty("fts.sample.timout", "3s");    // a typo
        p.setProperty("fts.sample.threads", "2");    // known
        p.setProperty("fts.entirely.different", "x");
        p.setProperty("jacorb.poa.queue_max", "1");  // not ours
        Captured log = new Captured();
        assertEquals(List.of("fts.entirely.different", "fts.sample.timout"), ConfigKeys.checkNames(log, p));
        assertEquals(2, log.warnings.size(), log.warnings.toString());
        assertTrue(log.warnings.get(1).contains("fts.sample.timout")
                && log.warnings.get(1).contains("did you mean fts.sample.timeout?"), log.warnings.get(1));
        assertTrue(!log.warnings.get(0).contains("did you mean"), log.warnings.get(0));
    }

    @Test
    void closestSuggestsOnlyNearNames() {
        List<String> known = List.of("fts.request.timeout", "fts.request.max_size");
        assertEquals("fts.request.timeout", ConfigKeys.closest("fts.request.timeuot", known));
        assertNull(ConfigKeys.closest("fts.batching", known));
    }

    /** A logger that keeps the warnings it is given. */
    private static final class Captured extends AbstractLogger {
        final List<String> warnings = new ArrayList<>();

        @Override
        protected String getFullyQualifiedCallerName() {
            return null;
        }

        @Override
        protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] args,
                                                   Throwable t) {
            if (level == Level.WARN) {
                warnings.add(MessageFormatter.basicArrayFormat(pattern, args));
            }
        }

        @Override
        public boolean isTraceEnabled() {
            return true;
        }

        @Override
        public boolean isTraceEnabled(Marker marker) {
            return true;
        }

        @Override
        public boolean isDebugEnabled() {
            return true;
        }

        @Override
        public boolean isDebugEnabled(Marker marker) {
            return true;
        }

        @Override
        public boolean isInfoEnabled() {
            return true;
        }

        @Override
        public boolean isInfoEnabled(Marker marker) {
            return true;
        }

        @Override
        public boolean isWarnEnabled() {
            return true;
        }

        @Override
        public boolean isWarnEnabled(Marker marker) {
            return true;
        }

        @Override
        public boolean isErrorEnabled() {
            return true;
        }

        @Override
        public boolean isErrorEnabled(Marker marker) {
            return true;
        }
    }
}
