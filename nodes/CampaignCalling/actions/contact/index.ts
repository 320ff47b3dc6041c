import { defineResource } from '../resource';
import * as addToCampaign from './addToCampaign.operation';
import * as get from './get.operation';

export const contact = defineResource('Contact', 'contact', [addToCampaign.operation, get.operation]);
