package org.fts.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

import org.fts.testing.Recorder.Delivery;

/** Checks members' delivery sequences against each other. */
public final class OneOrder {
    private OneOrder() {
    }

    /** No member delivered a broadcast twice, and no two members delivered two broadcasts in opposite orders. */
    public static void assertOneOrder(List<List<Delivery>> seqs, String context) {
        for (List<Delivery> s : seqs) {
            assertEquals(s.size(), new HashSet<>(s).size(), context + ": a broadcast delivered twice");
        }
        for (List<Delivery> x : seqs) {
            for (List<Delivery> y : seqs) {
                Map<String, Integer> py = new HashMap<>();
                for (int i = 0; i < y.size(); i++) {
                    py.put(y.get(i).text(), i);
                }
                int last = -1;
                for (Delivery d : x) {
                    Integer p = py.get(d.text());
                    if (p != null) {
                        if (p < last) {
                            fail(context + ": two members delivered in different orders around " + d);
                        }
                        last = p;
                    }
                }
            }
        }
    }
}
