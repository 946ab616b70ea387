import { runRole } from './entry-point';

/** The HTTP API alone (scaled-out deployment). */
runRole('api');
