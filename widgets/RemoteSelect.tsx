import type { ReactNode } from 'react';
import type { WidgetProps } from '@rjsf/utils';
import { ListStatus } from './ListStatus';
import type { RemoteList } from './useRemoteList';
import { ChoiceSelect } from './ChoiceSelect';
import { hintId, optionString, widgetText, type WidgetTexts } from './widgetProps';

interface RemoteSelectProps {
  /** The widget's own props: id, name, placeholder, flags, handlers and the ui:options read here. */
  widget: WidgetProps;
  /** The chosen value, '' for none. */
  value: string;
  /** Whether `value` is missing from the list, and so needs an option of its own. */
  unknownValue: boolean;
  list: RemoteList<unknown>;
  retry: () => void;
  /** Default of the ui:options autocomplete; the shared words (the flow's messages.widgets) that loadingText and loadErrorText default to. */
  defaultAutoComplete: string;
  loadingTextOf: keyof WidgetTexts;
  errorTextOf: keyof WidgetTexts;
  /** Shown when there is nothing to load yet (no state chosen). */
  idleText?: string;
  /** The list's options. */
  children: ReactNode;
}

/**
 * The select behind the state and city widgets, with its status line under it. Disabled until
 * the list is ready. Reads ui:options autocomplete, loadingText, loadErrorText and retryText.
 */
export function RemoteSelect({
  widget,
  value,
  unknownValue,
  list,
  retry,
  defaultAutoComplete,
  loadingTextOf,
  errorTextOf,
  idleText,
  children,
}: RemoteSelectProps) {
  const { id, options } = widget;
  const statusId = hintId(id);

  return (
    <div className="w-select">
      <ChoiceSelect
        widget={widget}
        value={value}
        toValue={(option) => option || undefined}
        unavailable={list.status !== 'ready'}
        busy={list.status === 'loading'}
        autoComplete={optionString(options, 'autocomplete') ?? defaultAutoComplete}
        hints={[statusId]}
      >
        {/* A value the list does not hold (yet, or any more) is still shown rather than silently looking empty. */}
        {unknownValue && <option value={value}>{value}</option>}
        {children}
      </ChoiceSelect>
      <ListStatus
        id={statusId}
        list={list}
        retry={retry}
        idleText={idleText}
        loadingText={widgetText(widget, 'loadingText', loadingTextOf)}
        errorText={widgetText(widget, 'loadErrorText', errorTextOf)}
        retryText={widgetText(widget, 'retryText', 'listRetry')}
      />
    </div>
  );
}
