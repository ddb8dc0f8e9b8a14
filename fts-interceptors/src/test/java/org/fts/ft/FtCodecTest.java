package org.fts.ft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;

import org.junit.jupiter.api.Test;

class FtCodecTest {
    @Test
    void tagFtGroupRoundTrips() {
        FtGroupComponent c = new FtGroupComponent("bank", 0x1234_5678_9abcL, 7);
        assertEquals(c, FtGroupComponent.decode(c.encode()));
    }

    @Test
    void encodingIsCdrWithAlignmentFromTheByteOrderOctet() {
        byte[] b = new FtGroupComponent("ab", 1, 2).encode();
        // order, version 1.0, pad to 4, length 3, "ab\0", pad to 8, ulonglong 1, ulong 2
        byte[] expected = {0, 1, 0, 0, 0, 0, 0, 3, 'a', 'b', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2};
        assertEquals(Arrays.toString(expected), Arrays.toString(b));
    }

    @Test
    void malformedDataIsAMarshalErrorNotACrash() {
        byte[] good = new FtGroupComponent("bank", 1, 2).encode();
        for (int cut = 0; cut < good.length; cut++) {
            byte[] truncated = Arrays.copyOf(good, cut);
            assertThrows(org.omg.CORBA.MARSHAL.class, () -> FtGroupComponent.decode(truncated), "cut at " + cut);
        }
        byte[] badLength = good.clone();
        badLength[7] = 100;
        assertThrows(org.omg.CORBA.MARSHAL.class, () -> FtGroupComponent.decode(badLength));
        byte[] badOrder = good.clone();
        badOrder[0] = 9;
        assertThrows(org.omg.CORBA.MARSHAL.class, () -> FtGroupComponent.decode(badOrder));
    }

    @Test
    void ftRequestRoundTripsAndRejectsGarbage() {
        FtRequestContext c = new FtRequestContext("client-7", -3, 0x0123_4567_89ab_cdefL);
        assertEquals(c, FtRequestContext.decode(c.encode()));
        assertThrows(org.omg.CORBA.MARSHAL.class, () -> FtRequestContext.decode(new byte[] {0, 1, 2}));
        assertThrows(org.omg.CORBA.MARSHAL.class, () -> FtRequestContext.decode(new byte[0]));
        assertThrows(org.omg.CORBA.BAD_PARAM.class, () -> FtRequestContext.decode(new FtRequestContext("", 1, 1).encode()));
    }
}
