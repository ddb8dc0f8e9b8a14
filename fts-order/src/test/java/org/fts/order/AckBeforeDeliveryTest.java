package org.fts.order;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.fts.gc.GroupConfig;
import org.junit.jupiter.api.Test;

/**
 * A follower acknowledges a batch of ORDs before it delivers what the batch committed ({@link Following#onOrd},
 * {@link TotalOrder#afterBatch}): the sequencer's client waits for that acknowledgement, and the delivery thread the
 * batch wakes would compete with it (docs/performance.md, "The lone client: acknowledgements").
 */
class AckBeforeDeliveryTest {
    @Test
    void aFollowerAcknowledgesABatchBeforeItDeliversWhatTheBatchCommitted() {
        try (SteppedGroup g = new SteppedGroup(new GroupConfig(3, true)).add("a", "b", "c")) {
            g.view("a", "b", "c");
            List<Long> atAck = g.node("b").deliveredAtAck;
            atAck.clear();   // the opening's
            g.send("a", 1);
            g.node("b").delivered(1);
            assertEquals(0L, atAck.get(0),
                    "b's ACK of the ORD left before b delivered it (three replicas: it needs no commit to deliver)");
            assertEquals(1, g.deliveredByProtocol("b"), "and b delivered it after");
            atAck.clear();   // and the timer's repeat at the end of the run
            g.send("c", 2);
            assertEquals(List.of("a:0", "c:0", "c:1"), g.node("b").texts());
            assertEquals(List.of(1L, 2L), atAck.subList(0, 2), "each ORD acknowledged before its delivery");
        }
    }
}
