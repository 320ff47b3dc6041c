/** The fields Simplify keeps of a campaign, in their order, as docs/operations.md ("Simplify") states them. */
export const SIMPLIFIED_CAMPAIGN_FIELDS = [
	'id',
	'name',
	'status',
	'campaign_type',
	'call_progress',
	'days_of_week',
	'time_zone',
	'call_time_of_day_from',
	'call_time_of_day_to',
	'ended_at',
];
