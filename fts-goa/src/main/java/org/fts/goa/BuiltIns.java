package org.fts.goa;

import java.util.List;

import org.fts.goa.frontend.Exchange;
import org.fts.goa.frontend.Giop;
import org.fts.goa.frontend.GiopRequest;
import org.omg.CORBA.CompletionStatus;
import org.omg.CORBA.NO_IMPLEMENT;

/**
 * CORBA's built-in operations on the adaptor's own listener, answered by the replica that received them, as a POA
 * answers them without calling the servant's skeleton: {@code _is_a}, {@code _non_existent}, {@code
 * _repository_id}; {@code _interface} and {@code _get_component} are NO_IMPLEMENT. They read only the object's
 * interfaces, the same at every replica, so they are not ordered.
 */
final class BuiltIns {
    private BuiltIns() {
    }

    /** Whether {@code ex} was a built-in operation, now answered. */
    static boolean answer(Exchange ex, String[] interfaces) {
        GiopRequest r = ex.request();
        switch (r.operation()) {
            case "_is_a" -> {
                String id = Giop.stringArgument(r);
                boolean is = "IDL:omg.org/CORBA/Object:1.0".equals(id) || List.of(interfaces).contains(id);
                ex.reply(Giop.NO_EXCEPTION, List.of(), new byte[] {(byte) (is ? 1 : 0)});
            }
            case "_non_existent", "_not_existent" -> ex.reply(Giop.NO_EXCEPTION, List.of(), new byte[] {0});
            case "_repository_id" -> ex.reply(Giop.NO_EXCEPTION, List.of(), Giop.stringBody(interfaces[0]));
            case "_interface", "_get_component" -> throw new NO_IMPLEMENT("FTS: " + r.operation()
                    + " is not offered by the group's objects", 0, CompletionStatus.COMPLETED_NO);
            default -> {
                return false;
            }
        }
        return true;
    }
}
