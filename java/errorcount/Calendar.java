package errorcount;

/** Proleptic Gregorian date arithmetic on integers: no time zone, no java.time, no allocation. */
final class Calendar {
    private Calendar() {
    }

    static int daysInMonth(long year, int month) {
        boolean leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
        switch (month) {
            case 2: return leap ? 29 : 28;
            case 4: case 6: case 9: case 11: return 30;
            default: return 31;
        }
    }

    static boolean isDate(long year, int month, int day) {
        return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
    }

    /** Days since 1970-01-01 (days from civil, 400-year eras). */
    static long epochDay(long year, int month, int day) {
        long y = month <= 2 ? year - 1 : year;
        long era = Math.floorDiv(y, 400);
        long yearOfEra = y - era * 400;
        long dayOfYear = (153L * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
        long dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
        return era * 146097 + dayOfEra - 719468;
    }

    /**
     * The outcome of a timestamp whose syntax was accepted: IMPOSSIBLE_DATE for a day the month
     * does not have, MINUTE_OUT_OF_RANGE for year 0 or a minute outside MySQL's range, else the
     * packed minute (the wall-clock minute minus the zone offset, in minutes).
     */
    static long outcome(int year, int month, int day, int hour, int minute, int offset, boolean error) {
        if (!isDate(year, month, day)) {
            return Outcome.IMPOSSIBLE_DATE;
        }
        if (year < 1) {
            return Outcome.MINUTE_OUT_OF_RANGE;
        }
        return Outcome.counted(epochDay(year, month, day) * 1440 + hour * 60 + minute - offset, error);
    }
}
