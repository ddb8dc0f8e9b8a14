package org.fts.process;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PortsTest {
    @Test
    void concurrentForksTakeDisjointSlicesAndNumbersPastTheCountWrapAround() {
        assertArrayEquals(new int[] {20_000, 12_000}, Ports.slice(null));
        assertArrayEquals(new int[] {20_000, 12_000}, Ports.slice("1/1"));
        assertArrayEquals(new int[] {20_000, 12_000}, Ports.slice("3/1"));   // Surefire's third fork of one
        assertArrayEquals(new int[] {20_000, 4_000}, Ports.slice("1/3"));
        assertArrayEquals(new int[] {24_000, 4_000}, Ports.slice("2/3"));
        assertArrayEquals(new int[] {28_000, 4_000}, Ports.slice("3/3"));
        assertArrayEquals(new int[] {20_000, 4_000}, Ports.slice("4/3"));
    }

    @Test
    void aMalformedSliceNamesTheProperty() {
        for (String bad : new String[] {"0/2", "2", "a/b", "1/0", "1/101"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Ports.slice(bad));
            assertTrue(e.getMessage().startsWith("fts.ports.slice=" + bad), e.getMessage());
        }
    }

    @Test
    void aPortPickedIsFreeAndInThisJvmsSlice() throws Exception {
        int p = Ports.free("127.0.0.1");
        assertTrue(p >= 20_000 && p < 32_000, () -> "port " + p);
    }
}
