package org.fts.gc;

/**
 * What {@link GroupChannel#readBarrier} calls back: exactly one of these methods, once, on the channel's delivery
 * thread (where {@link GroupListener} callbacks run), or neither if the channel closes first. A binding may run
 * {@link #ready} on another thread instead when the delivery thread has handed over everything and is held off
 * meanwhile: then {@link GroupChannel#isDeliveryThread} is true there, and nothing is delivered during the call.
 */
public interface ReadBarrier {

    /**
     * Every broadcast that any member of the group had delivered when the barrier was asked for has been
     * delivered here, and handed to the listener before this call: the application's state, read now, holds every
     * broadcast whose delivery anyone could have observed before the read began. Runs on the delivery thread (or in
     * its stead: see the class), so nothing is delivered meanwhile.
     */
    void ready();

    /**
     * This member could not confirm the barrier (it follows no open primary epoch, a view changed, its sequencer or
     * leader did not confirm in time, or the binding has no read barrier): the application must order its read
     * instead, like any other request. Runs on the delivery thread; it should not block there.
     *
     * @param why for logs and counters
     */
    void refused(String why);
}
