package org.fts.gc.jgroups;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

import org.fts.jgroups.JGroupsStack;
import org.jgroups.JChannel;
import org.junit.jupiter.api.Test;

/**
 * The shipped udp stack is shared with the raft binding (fts-jgroups) and names no policy of either binding; the
 * jgroups binding runs it with {@link DirectOrdering}, and leaves any other stack as it is.
 */
class DirectOrderingTest {
    @Test
    void theJGroupsBindingRunsTheSharedUdpStackWithDirectOrderingAndLeavesOtherStacksAsTheyAre() throws Exception {
        String shared = JGroupsStack.stackXml(new Properties());
        assertFalse(shared.contains("message_processing_policy=\""), "the shared stack names a binding's policy");
        String udp = DirectOrdering.onShippedUdp("udp", shared);
        try (JChannel ch = new JChannel(new ByteArrayInputStream(udp.getBytes(StandardCharsets.UTF_8)))) {
            assertInstanceOf(DirectOrdering.class, ch.getProtocolStack().getTransport().getMessageProcessingPolicy());
        }
        assertEquals(udp, DirectOrdering.onShippedUdp("udp", udp), "added twice");
        Properties tcp = new Properties();
        tcp.setProperty(JGroupsStack.STACK.name(), "tcp");
        assertEquals(JGroupsStack.stackXml(tcp), DirectOrdering.onShippedUdp("tcp", JGroupsStack.stackXml(tcp)));
    }
}
