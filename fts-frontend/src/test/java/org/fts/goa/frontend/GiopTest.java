package org.fts.goa.frontend;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.omg.IOP.ServiceContext;

/** {@link Giop}'s replies: where their bodies start, whatever the contexts before them; and bounded reads. */
class GiopTest {
    private static final byte[] BODY = {0, 0, 0, 5, 'h', 'e', 'l', 'o', 0};

    @Test
    void aGiop10Or11ReplyBodyStartsEightAlignedWhateverItsContexts() {
        for (int minor = 0; minor <= 1; minor++) {
            for (int len = 0; len < 12; len++) {
                List<ServiceContext> contexts = List.of(new ServiceContext(12, new byte[len]));
                ByteBuffer r = ByteBuffer.wrap(Giop.reply(minor, 7, Giop.NO_EXCEPTION, contexts, BODY));
                r.position(12);
                List<Integer> ids = new ArrayList<>();
                int n = r.getInt();
                for (int i = 0; i < n; i++) {
                    align(r, 4);
                    ids.add(r.getInt());
                    int length = r.getInt();
                    r.position(r.position() + length);
                }
                align(r, 4);
                assertEquals(7, r.getInt());
                assertEquals(0, r.getInt());
                assertEquals(0, r.position() % 8, "1." + minor + ", a context of " + len + " bytes: " + ids);
                assertArrayEquals(BODY, Arrays.copyOfRange(r.array(), r.position(), r.limit()));
                assertEquals(12, ids.get(0));
                assertEquals(ids.size() == 2, ids.size() == 2 && ids.get(1) == Giop.PADDING_CONTEXT,
                        "a second context is the padding");
                assertEquals(r.limit() - 12, r.getInt(8), "the header's size");
            }
        }
    }

    @Test
    void aGiop12ReplyBodyStartsEightAligned() {
        for (int len = 0; len < 12; len++) {
            ByteBuffer r = ByteBuffer.wrap(Giop.reply(2, 9, Giop.USER_EXCEPTION,
                    List.of(new ServiceContext(12, new byte[len])), BODY));
            assertArrayEquals(BODY, Arrays.copyOfRange(r.array(), r.limit() - BODY.length, r.limit()));
            assertEquals(0, (r.limit() - BODY.length) % 8, "a context of " + len + " bytes");
        }
    }

    @Test
    void aHeaderThatLiesAboutItsLengthsIsAGiopErrorNotAnIndexError() {
        byte[] m = Arrays.copyOf(new byte[] {'G', 'I', 'O', 'P', 1, 2, 0, 0, 0, 0, 0, 16,
            0, 0, 0, 1, 3, 0, 0, 0, 0, 0, 0, 0}, 28);   // request 1, KeyAddr
        ByteBuffer.wrap(m).putInt(24, 1_000_000);   // a key of a million bytes in a 28-byte message
        assertThrows(GiopException.class, () -> Giop.request(m));
    }

    private static void align(ByteBuffer b, int n) {
        while (b.position() % n != 0) {
            b.get();
        }
    }
}
