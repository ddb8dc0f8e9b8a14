package org.fts.gc;

import java.util.Properties;

/**
 * The test kit's {@link Instrumentation} (registered by this test-jar's {@code META-INF/services}): it records every
 * channel created ({@link OpenChannels}) and lets a test take over the fail-stop halt ({@link FailStopHook}).
 */
public final class TestInstrumentation implements Instrumentation {
    @Override
    public void created(Properties config, GroupChannel channel) {
        OpenChannels.created(config, channel);
    }

    @Override
    public boolean fatal(Thread thread, Throwable cause) {
        return FailStopHook.fatal(thread, cause);
    }
}
