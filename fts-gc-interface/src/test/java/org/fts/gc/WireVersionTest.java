package org.fts.gc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class WireVersionTest {
    private static int[] parse(String text) throws IOException {
        return WireVersion.parse(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
    }

    /** This build speaks version 1 only: the first release with versions; the next one raises highest. */
    @Test
    void thisBuildSpeaksVersionOne() {
        assertEquals(1, WireVersion.lowest());
        assertEquals(1, WireVersion.highest());
        assertTrue(WireVersion.speaks(1));
        assertFalse(WireVersion.speaks(2));
        assertFalse(WireVersion.speaks(0));
        assertEquals("wire version 1", WireVersion.describe());
        assertEquals("wire versions 1-2", WireVersion.describe(1, 2));
    }

    @Test
    void theWhiteboardsPackedFormHoldsTheGroupsVersionAndTheBuildsRange() {
        long packed = WireVersion.pack(2, 1, 3);
        assertEquals(2, WireVersion.group(packed));
        assertEquals(1, WireVersion.lowest(packed));
        assertEquals(3, WireVersion.highest(packed));
        assertEquals(0, WireVersion.group(WireVersion.pack(0, 1, 1)), "0: the group's version not known yet");
    }

    @Test
    void theResourceMustBeARange() throws IOException {
        assertArrayEquals(new int[] {1, 2}, parse("lowest=1\nhighest=2\n"));
        for (String bad : new String[] {"lowest=2\nhighest=1", "lowest=0\nhighest=1", "lowest=1\nhighest=256",
            "lowest=1", "lowest=one\nhighest=2"}) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> parse(bad), bad);
            assertTrue(e.getMessage().startsWith(WireVersion.RESOURCE), e.getMessage());
        }
    }
}
