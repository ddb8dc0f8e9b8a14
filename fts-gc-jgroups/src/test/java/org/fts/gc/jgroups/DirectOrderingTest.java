package org.fts.gc.jgroups;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

import org.fts.jgroups.JGroupsStack;
import org.fts.order.TotalOrder;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.junit.jupiter.api.Test;

/**
 * The shipped udp stack is shared with the raft binding (fts-jgroups) and names no policy of either binding; the
 * jgroups binding puts {@link DirectOrdering} at its transport's placeholder, which only the udp stack has.
 */
class DirectOrderingTest {
    @Test
    void theJGroupsBindingRunsTheSharedUdpStackWithDirectOrderingAndTheTcpStackWithout() throws Exception {
        String shared = JGroupsStack.stackXml(new Properties());
        assertFalse(shared.contains("message_processing_policy=\""), "the shared stack names a binding's policy");
        assertFalse(shared.contains("${fts.binding"), "every binding placeholder is filled: " + shared);
        String udp = JGroupsStack.stackXml(new Properties(), DirectOrdering.BINDING);
        try (JChannel ch = new JChannel(new ByteArrayInputStream(udp.getBytes(StandardCharsets.UTF_8)))) {
            assertInstanceOf(DirectOrdering.class, ch.getProtocolStack().getTransport().getMessageProcessingPolicy());
        }
        Properties tcp = new Properties();
        tcp.setProperty(JGroupsStack.STACK.name(), "tcp");
        assertEquals(JGroupsStack.stackXml(tcp), JGroupsStack.stackXml(tcp, DirectOrdering.BINDING));
    }

    /**
     * Only a batch's acknowledgement sent outside UNICAST3 is handled on the receiver thread: a reliable one (the
     * timer's repeat) went through UNICAST3, which may deliver the sender's queued messages on the thread that
     * delivers it (the deadlock {@code JGroupsFlowControlTest} reproduces), and nothing else is read there.
     */
    @Test
    void onlyAnAcknowledgementOutsideUnicast3IsHandledOnTheReceiverThread() {
        byte[] ack = java.nio.ByteBuffer.allocate(17).put((byte) 3).putLong(7).putLong(12).array();
        assertTrue(TotalOrder.isAck(ack, 0, ack.length), "the ACK's encoding");
        assertTrue(DirectOrdering.isAck(new BytesMessage(null, ack).setFlag(Message.Flag.NO_RELIABILITY,
                Message.Flag.OOB, Message.Flag.NO_FC)));
        byte[] framed = new byte[ack.length + 4];
        System.arraycopy(ack, 0, framed, 2, ack.length);
        assertTrue(DirectOrdering.isAck(new BytesMessage(null, framed, 2, ack.length)
                .setFlag(Message.Flag.NO_RELIABILITY)), "at an offset");
        assertFalse(DirectOrdering.isAck(new BytesMessage(null, ack).setFlag(Message.Flag.OOB, Message.Flag.NO_FC)),
                "a reliable ACK (UNICAST3 numbered it): the pool");
        byte[] other = ack.clone();
        other[0] = 2;
        assertFalse(DirectOrdering.isAck(new BytesMessage(null, other).setFlag(Message.Flag.NO_RELIABILITY)),
                "not an ACK");
        assertFalse(DirectOrdering.isAck(new BytesMessage(null, new byte[] {3}).setFlag(Message.Flag.NO_RELIABILITY)),
                "too short to be one");
        assertFalse(DirectOrdering.isAck(new BytesMessage(null, (byte[]) null).setFlag(Message.Flag.NO_RELIABILITY)),
                "empty");
    }
}
